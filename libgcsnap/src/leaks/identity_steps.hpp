#pragma once
// Each walk's objects' nodes at the next walk of the same recording (kNoBirth where one died),
// from scan_walks, and their composition into the nodes at the last walk (compose_identity),
// one walk at a time from the last backwards, as the second pass reads the walks.
//
// Kept whole, those maps were 4 B an object and walk: 360 MB at 10 x 10 M objects, held
// through the last walk's judging, the peak. Delta-coded they are about 1 B an object: the
// survivors keep their order from walk to walk (a GC's compaction keeps the order of what it
// moves) and the dead code as one byte.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gcsnap::leaks {

class IdentitySteps {
 public:
  /// Room for the maps of WALKS walks, all empty.
  void reset(size_t walks) { steps_.assign(walks, Coded{}); }
  /// Keep NEXT as walk W's map to walk W + 1. Throws std::bad_alloc.
  void set(size_t w, std::span<const uint32_t> next);
  /// Forget walk W's map.
  void clear(size_t w) { steps_[w] = Coded{}; }
  /// Objects of walk W that its map covers (0: no map).
  size_t objects(size_t w) const noexcept { return steps_[w].count; }
  /// Walk W's map composed with LATER (the nodes at the last walk of walk W + 1's objects; empty
  /// when W + 1 is the last walk): the nodes at the last walk of walk W's objects, or kNoBirth.
  /// Throws std::bad_alloc.
  std::vector<uint32_t> compose(size_t w, std::span<const uint32_t> later) const;
  /// Bytes held by the coded maps.
  size_t coded_bytes() const noexcept;

 private:
  struct Coded {
    std::vector<uint8_t> bytes;
    size_t count = 0;
  };
  std::vector<Coded> steps_;
};

}  // namespace gcsnap::leaks
