#pragma once
// The recorder: the shim's logic with no COM types. The callback class turns each runtime
// callback into one call here with plain integers and spans; tests drive it the same way
// with synthetic GCs. It copies into a GcBatch and hands the batch to a BatchSink at GC end.
// Never throws out of its on_* methods' callers' guard: allocation failures propagate as
// std::bad_alloc to the one guard in the callback class.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "chunk_pool.hpp"
#include "class_cache.hpp"
#include "gc_batch.hpp"
#include "settings.hpp"
#include "value_reader.hpp"

namespace gcsnap::shim {

class BatchSink;

/// What the recorder needs to ask the runtime. Implemented over ICorProfilerInfo in the shim.
class RuntimeQueries {
 public:
  struct TypeName {
    std::string name;
    std::string module;
    bool resolved = false;
    SizeKind size_kind = SizeKind::Unknown;  ///< fixed-size class, or array/string
  };
  virtual TypeName type_name(uint64_t class_id) = 0;
  virtual uint64_t object_size(uint64_t object_id) = 0;   ///< 0 if unknown
  /// The u32 after the object's MethodTable pointer: the component count of an array or
  /// string. Read from the object's memory in the shim; tests fake it.
  virtual uint32_t component_count(uint64_t object_id) = 0;
  virtual uint64_t class_of(uint64_t object_id) = 0;      ///< 0 if unknown
  virtual std::string method_name(uint64_t function_id) = 0;  ///< empty if unknown
  /// Fill OUT with the layout of CLASS_ID (OBJECT_ID: one of its instances, for arrays).
  /// Called once per type, inside the GC: non-triggering calls only. False: no layout.
  virtual bool type_layout(uint64_t class_id, uint64_t object_id, OwnedLayout& out) {
    (void)class_id, (void)object_id, (void)out;
    return false;
  }
  /// Find the offsets of System.Delegate's _methodPtr and _methodPtrAux in CLASS_ID's
  /// instances (a class derived from System.Delegate). False: not a delegate, or not found.
  virtual bool delegate_code_offsets(uint64_t class_id, uint32_t& method_ptr, uint32_t& method_ptr_aux) {
    (void)class_id, (void)method_ptr, (void)method_ptr_aux;
    return false;
  }
  /// The FunctionID of the method whose code (or precode stub) starts at CODE, or 0.
  virtual uint64_t function_at(uint64_t code) {
    (void)code;
    return 0;
  }
  /// Return OBJECT_ID's memory as words (readable for its size while the runtime is
  /// suspended for the heap walk), or nullptr when slots are not captured.
  virtual const uint64_t* object_words(uint64_t object_id) {
    (void)object_id;
    return nullptr;
  }
  /// Find the instance field NAME of CLASS_ID or its parents (value_reader.hpp). Called inside
  /// the GC: non-triggering calls only. False: no such field (another runtime version's names).
  virtual bool find_field(uint64_t class_id, const char* name, ValueField& out) {
    (void)class_id, (void)name, (void)out;
    return false;
  }

 protected:
  ~RuntimeQueries() = default;
};

/// Bytes of one full heap-walk chunk (with its reference slots).
inline const size_t kFullChunkBytes =
    ObjectChunk::bytes_for(ObjectChunk::kObjects, ObjectChunk::kObjects * ObjectChunk::kReferencesPerObject);

struct RecorderOptions {
  SnapshotPolicy policy = SnapshotPolicy::Default;
  uint64_t max_snapshots = UINT64_MAX;
  uint64_t memory_budget_bytes = 768ull << 20;  ///< batches being filled or queued
  /// Ask the runtime for every object's size and count where the prediction disagrees
  /// (GCSNAP_VERIFY_SIZES=1). The recording keeps the runtime's answer either way.
  bool verify_sizes = false;
  bool dependent_handles = true;  ///< Callback5 was answered: heap walks capture dependent handles
  /// The default policy's walk-time budget, in thousandths of wall time: a gen2 GC that is not
  /// induced is walked only if its estimated duration is at most this share of the time from
  /// the end of the last walked GC (or from START_NS, before the first walk) to the end of this
  /// one (docs/shim.md, "Snapshot policies"). Induced GCs and on-demand snapshots are always walked.
  uint32_t walk_budget_per_mille = 10;
  /// The recording's size cap (format-spec.md §6.17): a policy walk that would not fit even with
  /// every earlier walk dropped is skipped. 0: no cap.
  uint64_t max_file_bytes = 0;
  /// When recording started (Initialize or attach), by the callers' clock.
  uint64_t start_ns = 0;
  /// The estimate of a walked GC before any walk has been timed: this many ns per byte of heap.
  uint32_t first_walk_ns_per_byte = 10;
  /// Find each reference's slot in its object's memory (RuntimeQueries::object_words) and
  /// resolve each type's field layout once (format-spec.md §6.12, §6.13).
  bool capture_slots = false;
  /// Record the walk's values (format-spec.md §6.23-§6.26; needs the objects' memory, as the
  /// slots do), and the first CAPTURE_STRING_CHARS characters of every string (0: none).
  bool capture_values = false;
  uint32_t capture_string_chars = 0;
  /// The OOM guard (format-spec.md §6.15 reason 2): read the memory cgroup's usage and limit;
  /// false when there is no limit. Asked at the start of a GC that would be walked; a walk whose
  /// estimated need exceeds the headroom is skipped. Null: no guard.
  std::function<bool(uint64_t& usage, uint64_t& limit)> read_cgroup;
  /// The events source (docs/shim.md "Sources", "Snapshot policies"): a GC the policy picks
  /// cannot be walked itself (a walk needs its dump session open before its GC starts), so the
  /// recorder asks for a follow-up walk instead (follow_up_wanted), which the shim takes through
  /// a GC it forces. One at a time, each within a walk-time budget: the default policy's own,
  /// follow_up_budget_per_mille for the other policies.
  bool walks_follow_gcs = false;
  uint32_t follow_up_budget_per_mille = 100;
};

/// Counters for tests and the shutdown line.
struct RecorderStats {
  uint64_t snapshots = 0;
  uint64_t walks_skipped = 0;     ///< gen2 GCs the default policy did not walk (walk-time budget)
  uint64_t follow_ups = 0;        ///< follow-up walks asked for (walks_follow_gcs)
  uint64_t follow_ups_folded = 0; ///< GCs a policy picked while a follow-up was already wanted
  uint64_t guard_skips = 0;       ///< walks not begun: the cgroup's headroom was too small
  uint64_t walks_abandoned = 0;   ///< walks abandoned at the memory cap
  uint64_t dropped_items = 0;
  uint64_t size_queries = 0;      ///< GetObjectSize2 calls during heap walks
  uint64_t size_predictions = 0;  ///< sizes taken from a class's learned rule
  uint64_t size_checks = 0;       ///< predictions compared with the runtime's answer
  uint64_t size_mismatches = 0;   ///< predictions the runtime contradicted (then asked per object)
  uint64_t types_named = 0;       ///< classes named (and their layouts read) at first sight
  uint64_t type_naming_ns = 0;    ///< wall time those took, on the thread that met them
};

class Recorder {
 public:
  /// POOL (optional) supplies populated chunks for heap walks; without it the GC thread maps its own.
  Recorder(const RecorderOptions& options, RuntimeQueries& queries, BatchSink& sink, ChunkPool* pool = nullptr);

  /// GarbageCollectionStarted. GENERATIONS_MASK bit g = generation g collected.
  /// Returns true when this GC gets a heap walk. MAY_WALK false: a GC whose facts come after
  /// its end (the events source's background GCs) is never walked nor takes a walk request.
  bool on_gc_started(uint8_t generations_mask, bool induced, uint64_t now_ns, bool may_walk = true);
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
  /// The hot path of a snapshot: no lock (the runtime walks the heap on one thread, at the end
  /// of the GC: GCProfileWalkHeap in DiagGCEnd), one table look-up for the class, a size
  /// from the class's rule, a copy into the current chunk.
  bool on_object_references(uint64_t object_id, uint64_t class_id, std::span<const uint64_t> references);
  /// GarbageCollectionFinished with the post-GC generation bounds: hand the GC to the sink.
  void on_gc_finished(std::span<const GenerationRange> bounds, uint64_t now_ns);

  /// Ask for the next induced full GC to be walked and marked OnDemand.
  void request_on_demand() noexcept { request_walk(SnapshotTrigger::OnDemand); }
  /// Ask for the next induced full GC to be walked and marked TRIGGER (a follow-up walk: the
  /// trigger follow_up_wanted() gave).
  void request_walk(SnapshotTrigger trigger) noexcept { requested_.store(static_cast<uint8_t>(trigger)); }
  /// Withdraw a request no GC answered: a later induced full GC (the app's GC.Collect) must not
  /// be taken for it, outside the walk's event session.
  void withdraw_on_demand() noexcept { requested_.store(0); }
  /// walks_follow_gcs: the trigger of the follow-up walk a policy asked for and not yet taken
  /// (Policy or Always), None when there is none.
  SnapshotTrigger follow_up_wanted() const noexcept { return static_cast<SnapshotTrigger>(follow_up_.load()); }
  /// The follow-up walk was taken or given up: a GC the policy picks may ask for the next.
  void follow_up_done() noexcept { follow_up_.store(0); }
  /// GC number of the last GC whose walk the OOM guard skipped or the memory cap abandoned, 0 if none.
  uint64_t last_refused_gc() const noexcept { return last_refused_gc_.load(); }
  /// GC number of the last walk that answered a request (on demand, or a follow-up), 0 if none.
  uint64_t last_on_demand_gc() const noexcept { return last_on_demand_gc_.load(); }
  /// The heap's bytes after the last GC (0 before the first): what a walk forced now will visit.
  uint64_t heap_bytes_now() const noexcept;
  /// Before any GC has finished (an attach): the heap's in-use bytes as the runtime reports them
  /// now, so that the first walk's estimates start from the heap. Ignored once a GC has finished.
  void note_heap_bytes(uint64_t heap_bytes) noexcept;
  /// What a walk over a heap of HEAP_BYTES would store: the last walk's records scaled by the
  /// heap's growth since; 0 before any walk (unknown).
  uint64_t expected_walk_bytes(uint64_t heap_bytes) const noexcept;
  bool is_walking() const noexcept { return walking_.load(std::memory_order_relaxed); }

  /// Stop recording for good: callbacks become no-ops, an open GC is discarded.
  void stop() noexcept;
  bool is_active() const noexcept { return active_.load(std::memory_order_relaxed); }
  RecorderStats stats() const;

 private:
  SnapshotTrigger decide_trigger(uint8_t generations_mask, bool induced, uint64_t now_ns, bool may_walk) noexcept;
  /// The trigger the policy gives a GC of this kind, before any budget or cap.
  SnapshotTrigger policy_pick(bool gen2, bool induced) const noexcept;
  /// Whether a walk now fits a walk-time budget of PER_MILLE; if not, the batch says why.
  bool fits_walk_budget(uint32_t per_mille, uint64_t now_ns) noexcept;
  /// How long a walked GC would take now: the last walked GC's duration scaled by the heap's
  /// size since, or the heap's size times first_walk_ns_per_byte before any walk.
  uint64_t estimated_walk_ns() const noexcept;
  static bool within_walk_budget(uint64_t estimate_ns, uint64_t since_ns, uint32_t per_mille) noexcept;
  /// What a walk now would fill: the last walk's stored bytes scaled by the heap's growth
  /// since (one byte per byte of heap before the first walk), plus one chunk.
  uint64_t estimated_walk_bytes() const noexcept;
  /// The OOM guard: false (and the batch says why) when the cgroup's headroom is too small.
  bool has_headroom_for_walk() noexcept;
  /// The memory cap was hit mid-walk: stop storing; on_gc_finished drops what was stored.
  void abandon_walk(size_t wanted_bytes) noexcept;
  /// At the end of an abandoned walk: no heap walk in the batch, a walk-skip record instead.
  void discard_abandoned_walk() noexcept;
  template <typename T>
  bool reserve_for(std::vector<T>& column, size_t extra) noexcept;
  bool charge(size_t bytes) noexcept;
  void note_drop() noexcept;
  /// OBJECT_ID: an instance of CLASS_ID (array layouts are read from one).
  uint32_t type_id_for(uint64_t class_id, uint64_t object_id);
  ClassInfo* class_info(uint64_t class_id, uint64_t object_id);
  /// Read the values of one walked object (value_reader.hpp); drop_values forgets a walk's.
  void read_values(uint64_t object_id, uint64_t class_id, uint8_t rule) noexcept;
  static void drop_values(GcBatch& batch) noexcept;
  uint64_t object_size(ClassInfo* info, uint64_t object_id);
  /// Append one object; false when it was dropped (memory budget).
  bool store_object(uint64_t address, uint32_t type_id, uint64_t size, std::span<const uint64_t> references);
  bool next_chunk(size_t references) noexcept;
  /// Write the slot of each of REFERENCES in OBJECT_ID (SIZE bytes) to OUT.
  void capture_slots(uint64_t object_id, uint64_t size, std::span<const uint64_t> references, uint32_t* out) noexcept;
  bool in_frozen(uint64_t address) const noexcept { return address - frozen_low_ < frozen_span_; }
  void add_non_gc_targets(std::span<const uint64_t> targets);
  void add_non_gc_target(uint64_t address);
  void resolve_new_methods();
  /// Read a delegate's code pointers during the walk (INFO: its class, a delegate type).
  void note_delegate(const ClassInfo& info, uint64_t object_id) noexcept;
  /// Turn the walk's delegate code pointers into FunctionIDs and name the new methods.
  void resolve_delegate_targets();

  RecorderOptions options_;
  RuntimeQueries& queries_;
  BatchSink& sink_;
  ChunkPool* pool_;
  mutable std::mutex mutex_;
  std::atomic<bool> active_{true};
  std::atomic<bool> walking_{false};
  std::atomic<uint8_t> requested_{0};  ///< the trigger of a requested walk, 0 when none
  std::atomic<uint8_t> follow_up_{0};  ///< the trigger of a wanted follow-up walk, 0 when none
  bool answering_request_ = false;     ///< this GC answers requested_
  std::atomic<uint64_t> last_on_demand_gc_{0};
  std::atomic<uint64_t> last_refused_gc_{0};
  std::atomic<bool> told_headroom_{false};
  std::atomic<bool> told_memory_limit_{false};

  std::unique_ptr<GcBatch> batch_;
  /// Inside a memory cgroup: the bytes this GC's walk may take (a quarter of the headroom at
  /// its start); UINT64_MAX otherwise.
  uint64_t walk_share_bytes_ = UINT64_MAX;
  uint64_t gc_count_ = 0;
  uint64_t policy_snapshots_ = 0;
  RecorderStats stats_;
  // The walk-time budget of the default policy: the last walked GC, by the callers' clock.
  bool walked_before_ = false;
  uint64_t last_walk_ns_ = 0;       ///< its duration, GarbageCollectionStarted to Finished
  uint64_t last_walk_end_ns_ = 0;
  uint64_t last_walk_heap_bytes_ = 0;  ///< the heap after it (sum of the generation ranges)
  uint64_t last_walk_bytes_ = 0;       ///< the bytes its objects and references took in the chunks
  uint64_t heap_bytes_ = 0;            ///< the heap after the last GC of any kind
  bool heap_known_ = false;            ///< a GC has finished: heap_bytes_ holds its size

  // The heap walk's state, touched only by the thread that walks (see on_object_references).
  ObjectChunk* chunk_ = nullptr;      ///< the chunk being filled (owned by batch_->objects)
  bool walk_abandoned_ = false;       ///< over the cap: the walk stops and its objects are discarded
  uint64_t abandoned_held_bytes_ = 0;  ///< what was held (with the charge that did not fit) then
  uint64_t abandoned_objects_ = 0;     ///< objects stored before the walk was abandoned
  uint64_t frozen_low_ = 0;           ///< bounds of all frozen ranges: one compare per address
  uint64_t frozen_span_ = 0;          ///< 0 when there are no frozen ranges
  uint64_t size_queries_ = 0, size_predictions_ = 0, size_checks_ = 0, size_mismatches_ = 0;
  uint64_t types_named_ = 0, type_naming_ns_ = 0;

  std::unordered_map<uint64_t, uint32_t> type_ids_;  ///< ClassID -> type id (frozen objects too)
  uint32_t next_type_id_ = 1;
  std::unique_ptr<ValueReader> values_;  ///< with options_.capture_values
  ClassCache classes_;  ///< ClassID -> type id and size rule, for the heap walk
  std::unordered_set<uint64_t> known_functions_;
  std::unordered_map<uint64_t, uint64_t> function_at_code_;  ///< code pointer -> FunctionID (0: none)
  std::vector<OwnedType> carried_types_;             ///< declared in a GC that was discarded
  std::vector<OwnedMethod> carried_methods_;
  std::vector<OwnedLayout> carried_layouts_;

  struct FrozenObject {
    uint32_t type_id;
    uint64_t size;
    uint64_t class_id;  ///< for its values at each walk
  };
  std::unordered_map<uint64_t, FrozenObject> frozen_objects_;  ///< frozen objects never move
  std::unordered_set<uint64_t> frozen_seen_this_gc_;
};

}  // namespace gcsnap::shim
