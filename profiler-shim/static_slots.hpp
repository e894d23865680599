#pragma once
// Named statics (format-spec.md §6.14, docs/shim.md "Field names"): for each reference-type
// static field of a loaded, initialised, non-generic class, where the runtime keeps its
// reference (a slot of a pinned statics array) and its name "Namespace.Class.Field".
//
// StaticSlotTable is the runtime-free part: the modules to look at (added from module-load
// callbacks, or the attach catch-up), a cache per (module, type token) of what was resolved
// or can never be, and the sorted list of known slots. The runtime calls hide behind
// StaticsRuntime (runtime_statics.cpp), so the table is unit-tested with a fake. refresh()
// runs on the writer thread, after a GC and never inside one: static addresses do not move
// (the statics arrays are pinned), so a slot resolved once stays right for later GCs.

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace gcsnap::shim {

/// A static field that may hold a reference, read from the metadata once per module.
struct StaticFieldInfo {
  uint32_t token = 0;  ///< mdFieldDef
  std::string name;    ///< "Namespace.Class.Field" (nested types "Outer+Inner.Field")
};

/// A type of a module with at least one such field.
struct StaticTypeInfo {
  uint32_t token = 0;         ///< mdTypeDef
  uint32_t probe_method = 0;  ///< a method of the type: its MethodDesc exists once the type is loaded
  std::vector<StaticFieldInfo> fields;
};

enum class Lookup : uint8_t {
  Found,   ///< the answer is there
  NotYet,  ///< not loaded or not initialised yet: ask again at a later GC
  Never,   ///< cannot be named (generic, thread static, unreadable): never ask again
};

/// What the table needs from the runtime. Implementations must not throw, must not load types
/// and must not trigger a GC.
class StaticsRuntime {
 public:
  /// The types of MODULE that have reference-type statics. False: the module cannot be read.
  virtual bool module_types(uint64_t module, std::vector<StaticTypeInfo>& out) = 0;
  /// The ClassID of TYPE, if it is loaded (without loading it). Never for generic types.
  virtual Lookup class_of(uint64_t module, const StaticTypeInfo& type, uint64_t& class_id) = 0;
  /// Where the reference of static FIELD of CLASS_ID is stored.
  virtual Lookup static_address(uint64_t module, uint64_t class_id, uint32_t field, uint64_t& address) = 0;

 protected:
  ~StaticsRuntime() = default;
};

struct NamedStatic {
  uint64_t address = 0;
  std::string name;
};

struct StaticTableStats {
  uint64_t modules = 0;         ///< modules scanned
  uint64_t types_pending = 0;   ///< types with reference statics not loaded or initialised yet
  uint64_t slots = 0;           ///< statics named
  uint64_t skipped_fields = 0;  ///< fields that can never be named (generic, thread static, ...)
  uint64_t runtime_calls = 0;   ///< class_of + static_address calls, all refreshes together
};

class StaticSlotTable {
 public:
  /// A module was loaded (any thread; cheap, no runtime call).
  void add_module(uint64_t module);
  /// A module is being unloaded (any thread): its slots go at the next refresh.
  void remove_module(uint64_t module);
  /// Scan new modules and resolve what has become resolvable (one thread only: the writer's).
  void refresh(StaticsRuntime& runtime);
  /// Every slot known after the last refresh, sorted by address, one per address.
  std::span<const NamedStatic> slots() const noexcept { return slots_; }
  StaticTableStats stats() const noexcept { return stats_; }

 private:
  struct TypeState {
    StaticTypeInfo info;
    uint64_t class_id = 0;
    std::vector<Lookup> fields;  ///< per field: Found (in found_), NotYet, Never
    bool done = false;           ///< every field Found or Never
  };
  struct ModuleState {
    std::vector<TypeState> types;
    std::vector<NamedStatic> found;
  };
  void resolve_type(StaticsRuntime& runtime, uint64_t module, TypeState& type, ModuleState& state);
  void rebuild_slots();

  std::mutex inbox_mutex_;  ///< guards the two inboxes only
  std::vector<uint64_t> added_, removed_;
  std::unordered_map<uint64_t, ModuleState> modules_;  ///< writer thread only
  std::vector<NamedStatic> slots_;
  StaticTableStats stats_;
};

}  // namespace gcsnap::shim
