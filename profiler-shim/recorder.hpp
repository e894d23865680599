#pragma once
// The recorder: the shim's logic with no COM types. The callback class turns each runtime
// callback into one call here with plain integers and spans; tests drive it the same way
// with synthetic GCs. It copies into a GcBatch and hands the batch to a BatchSink at GC end.
// Never throws out of its on_* methods' callers' guard: allocation failures propagate as
// std::bad_alloc to the one guard in the callback class.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gc_batch.hpp"
#include "settings.hpp"

namespace gcsnap::shim {

class BatchSink;

/// What the recorder needs to ask the runtime. Implemented over ICorProfilerInfo in the shim.
class RuntimeQueries {
 public:
  struct TypeName {
    std::string name;
    std::string module;
    bool resolved = false;
  };
  virtual TypeName type_name(uint64_t class_id) = 0;
  virtual uint64_t object_size(uint64_t object_id) = 0;   ///< 0 if unknown
  virtual uint64_t class_of(uint64_t object_id) = 0;      ///< 0 if unknown
  virtual std::string method_name(uint64_t function_id) = 0;  ///< empty if unknown

 protected:
  ~RuntimeQueries() = default;
};

struct RecorderOptions {
  SnapshotPolicy policy = SnapshotPolicy::Default;
  uint64_t max_snapshots = UINT64_MAX;
  uint64_t memory_budget_bytes = 768ull << 20;  ///< batches being filled or queued
};

/// Counters for tests and the shutdown line.
struct RecorderStats {
  uint64_t gcs_seen = 0;
  uint64_t snapshots = 0;
  uint64_t dropped_items = 0;
};

class Recorder {
 public:
  Recorder(const RecorderOptions& options, RuntimeQueries& queries, BatchSink& sink);

  /// GarbageCollectionStarted. GENERATIONS_MASK bit g = generation g collected.
  /// Returns true when this GC gets a heap walk.
  bool on_gc_started(uint8_t generations_mask, bool induced, uint64_t now_ns);
  /// Frozen (NonGC heap) segments, set at the start of a GC that walks the heap.
  void set_non_gc_ranges(std::span<const AddressRange> ranges);
  void on_surviving_references(std::span<const uint64_t> starts, std::span<const uint64_t> lengths);
  void on_moved_references(std::span<const uint64_t> old_starts, std::span<const uint64_t> new_starts,
                           std::span<const uint64_t> lengths);
  void on_root_references(std::span<const uint64_t> object_ids, std::span<const uint32_t> kinds,
                          std::span<const uint32_t> flags, std::span<const uint64_t> root_ids);
  /// Dependent handles (ConditionalWeakTable entries), reported before the heap walk. Kept
  /// only at GCs with a heap walk; elsewhere the call returns at once.
  void on_dependent_handles(std::span<const uint64_t> primaries, std::span<const uint64_t> secondaries);
  /// One object of the heap walk. Returns false to stop the walk (no heap walk this GC).
  bool on_object_references(uint64_t object_id, uint64_t class_id, std::span<const uint64_t> references);
  /// GarbageCollectionFinished with the post-GC generation bounds: hand the GC to the sink.
  void on_gc_finished(std::span<const GenerationRange> bounds, uint64_t now_ns);

  /// Ask for the next induced full GC to be walked and marked OnDemand.
  void request_on_demand() noexcept { on_demand_pending_.store(true); }
  /// GC number of the last OnDemand snapshot, 0 if none.
  uint64_t last_on_demand_gc() const noexcept { return last_on_demand_gc_.load(); }
  bool is_walking() const noexcept { return walking_.load(std::memory_order_relaxed); }

  /// Stop recording for good: callbacks become no-ops, an open GC is discarded.
  void stop() noexcept;
  bool is_active() const noexcept { return active_.load(std::memory_order_relaxed); }
  RecorderStats stats() const;

 private:
  SnapshotTrigger decide_trigger(uint8_t generations_mask, bool induced) noexcept;
  template <typename T>
  bool reserve_for(std::vector<T>& column, size_t extra) noexcept;
  bool charge(size_t bytes) noexcept;
  void note_drop() noexcept;
  uint32_t type_id_for(uint64_t class_id);
  void add_non_gc_target(uint64_t address);
  void resolve_new_methods();

  RecorderOptions options_;
  RuntimeQueries& queries_;
  BatchSink& sink_;
  mutable std::mutex mutex_;
  std::atomic<bool> active_{true};
  std::atomic<bool> walking_{false};
  std::atomic<bool> on_demand_pending_{false};
  std::atomic<uint64_t> last_on_demand_gc_{0};
  std::atomic<bool> told_memory_limit_{false};

  std::unique_ptr<GcBatch> batch_;
  uint64_t gc_count_ = 0;
  uint64_t policy_snapshots_ = 0;
  RecorderStats stats_;
  size_t last_walk_objects_ = 0;
  size_t last_walk_references_ = 0;

  std::unordered_map<uint64_t, uint32_t> type_ids_;  ///< ClassID -> type id
  uint32_t next_type_id_ = 1;
  // A direct-mapped cache in front of type_ids_: heap walks interleave a few hot types, and
  // the hash look-up per object was 5 % of an every-GC recording's CPU (perf, gc_heavy_app).
  struct CachedType {
    uint64_t class_id = 0;
    uint32_t type_id = 0;
  };
  static constexpr size_t kTypeCacheSize = 256;
  std::array<CachedType, kTypeCacheSize> type_cache_{};
  std::unordered_set<uint64_t> known_functions_;
  std::vector<OwnedType> carried_types_;             ///< declared in a GC that was discarded
  std::vector<OwnedMethod> carried_methods_;

  struct FrozenObject {
    uint32_t type_id;
    uint64_t size;
  };
  std::unordered_map<uint64_t, FrozenObject> frozen_objects_;  ///< frozen objects never move
  std::unordered_set<uint64_t> frozen_seen_this_gc_;
};

}  // namespace gcsnap::shim
