#pragma once
// Hand-made recordings for the leak-suspect tests: a heap whose objects never move (every GC
// is a full, sweeping GC whose surviving ranges are the live objects, so identity follows
// them exactly), and the seven-walk recording with planted leaks and look-alikes that the
// analysis and CLI tests read.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/writer.hpp"

namespace gcsnap::test {

class RoundHeap {
 public:
  /// Types get ids 1.. in the order of TYPE_NAMES, declared at the first GC.
  explicit RoundHeap(std::vector<std::string> type_names, std::string module = "App.dll")
      : names_(std::move(type_names)), module_(std::move(module)) {}

  /// Allocate an object (ids are allocation order, which is also address order).
  size_t add(uint32_t type, uint64_t size = 32);
  void ref(size_t from, size_t to) { objects_[from].refs.push_back(to); }
  void clear_refs(size_t from) { objects_[from].refs.clear(); }
  void kill(size_t id) { objects_[id].alive = false; }
  /// Hold ID by a strong root of KIND (a handle by default).
  void root(size_t id, RootKind kind = RootKind::Handle) { roots_.push_back({id, kind}); }
  /// Drop every root of ID.
  void unroot(size_t id) {
    std::erase_if(roots_, [&](const auto& r) { return r.first == id; });
  }
  /// Write the next GC (full, sweeping, with a heap walk) at TIME_BASE + its number in ms.
  Status write_gc(Writer& w, uint64_t time_base = 1'700'000'000'000'000'000ull);
  /// The address of object ID (objects never move).
  uint64_t address_of(size_t id) const { return objects_[id].address; }
  /// When set, called by write_gc after the heap walk, before end_gc: more sections for the
  /// block (allocation samples).
  std::function<Status(Writer&)> before_end;

 private:
  struct Obj {
    uint64_t address;
    uint32_t type;
    uint64_t size;
    std::vector<size_t> refs;
    bool alive;
  };
  std::vector<std::string> names_;
  std::string module_;
  std::vector<Obj> objects_;
  std::vector<std::pair<size_t, RootKind>> roots_;
  uint64_t next_ = 0x10000;
  uint64_t gc_ = 0;
};

/// The types of write_leak_rounds, "App.Holder" ... (ids 1..15).
const std::vector<std::string>& leak_round_type_names();

/// Write seven heap walks: one after startup, one after each of six rounds. Planted leaks:
/// App.Item (5 a round, in App.Holder's App.Item[] that is replaced by a bigger one) and
/// App.Node (3 a round appended to a linked list under App.Head). Look-alikes: App.Entry (a
/// cache that fills to 20 in two rounds, then replaces 5 a round), App.Temp (20 new ones
/// alive at each walk), App.Blob (50 from startup), App.Lazy (30 made in round 3), App.Busy's
/// App.Pooled (5 more a round, all born before the first walk).
Status write_leak_rounds(const std::string& path);

}  // namespace gcsnap::test
