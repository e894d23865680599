// The recorder's callbacks and the GC's life: a batch opened at the start of a GC, the ranges,
// roots and handles copied into it, and the batch handed to the sink at the end. The policy,
// the walk's storage and the naming of types are in recorder_policy.cpp, recorder_walk.cpp
// and recorder_types.cpp.
#include "recorder.hpp"

#include <algorithm>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "walk_sizing.hpp"
#include "writer_thread.hpp"

namespace gcsnap::shim {
namespace {

template <typename T>
void append(std::vector<T>& column, std::span<const T> values) {
  column.insert(column.end(), values.begin(), values.end());
}

}  // namespace

Recorder::Recorder(const RecorderOptions& options, RuntimeQueries& queries, BatchSink& sink, ChunkPool* pool)
    : options_(options), queries_(queries), sink_(sink), pool_(pool) {
  if (!options_.capture_values) return;
  try {
    values_ = std::make_unique<ValueReader>(queries_, options_.capture_string_chars);
  } catch (const std::exception&) {
    values_.reset();  // no random source for the key: the walks are recorded without values
  }
}

bool Recorder::on_gc_started(uint8_t generations_mask, bool induced, uint64_t now_ns, bool may_walk) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_.load()) return false;
  if (batch_) {
    // The runtime never finished the previous GC for us: keep its names, drop the rest.
    append<OwnedType>(carried_types_, batch_->types);
    append<OwnedMethod>(carried_methods_, batch_->methods);
    append<OwnedLayout>(carried_layouts_, batch_->layouts);
    batch_.reset();
  }
  batch_ = std::make_unique<GcBatch>();
  GcInfo& info = batch_->info;
  info.gc_number = ++gc_count_;
  info.generations_collected = generations_mask;
  info.reason = induced ? GcReason::Induced : GcReason::Other;
  info.start_time_ns = now_ns;
  info.trigger = decide_trigger(generations_mask, induced, now_ns, may_walk);
  walk_share_bytes_ = UINT64_MAX;
  if (info.trigger != SnapshotTrigger::None && !has_headroom_for_walk()) {
    if (info.trigger != SnapshotTrigger::OnDemand) --policy_snapshots_;
    info.trigger = SnapshotTrigger::None;
  }
  batch_->types = std::move(carried_types_);
  batch_->methods = std::move(carried_methods_);
  batch_->layouts = std::move(carried_layouts_);
  carried_layouts_.clear();
  carried_types_.clear();
  carried_methods_.clear();
  frozen_seen_this_gc_.clear();
  chunk_ = nullptr;
  walk_abandoned_ = false;
  abandoned_held_bytes_ = abandoned_objects_ = 0;
  frozen_low_ = 0;
  frozen_span_ = 0;
  bool walk = info.trigger != SnapshotTrigger::None;
  // The walk comes at the end of this GC: the pool populates chunks meanwhile.
  if (walk && pool_) {
    // No more than the walk is expected to fill: a small heap gets one chunk ahead, not four.
    const uint64_t chunk = kFullChunkBytes, estimate = estimated_walk_bytes();
    pool_->prepare(chunks_ahead_for(estimate > chunk ? estimate - chunk : 0, walk_share_bytes_, chunk),
                   reserve_limit(heap_bytes_, walk_share_bytes_, chunk));
  }
  batch_->dependent_handles_captured = walk && options_.dependent_handles;
  batch_->has_reference_slots = walk && options_.capture_slots;
  batch_->values_captured = walk && values_ != nullptr;
  batch_->capture_chars = values_ ? values_->capture_chars() : 0;
  walking_.store(walk);
  return walk;
}

void Recorder::set_non_gc_ranges(std::span<const AddressRange> ranges) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!batch_) return;
  batch_->non_gc_ranges.assign(ranges.begin(), ranges.end());
  // One bound over all frozen ranges, so that most addresses are ruled out by one compare.
  uint64_t low = UINT64_MAX, high = 0;
  for (const AddressRange& r : ranges) {
    if (r.length == 0) continue;
    low = std::min(low, r.start);
    high = std::max(high, r.start + r.length);
  }
  frozen_low_ = high > low ? low : 0;
  frozen_span_ = high > low ? high - low : 0;
}

template <typename T>
bool Recorder::reserve_for(std::vector<T>& column, size_t extra) noexcept {
  size_t needed = column.size() + extra;
  if (needed <= column.capacity()) return true;
  size_t grown = std::max({column.capacity() * 2, needed, size_t{64}});
  if (!charge((grown - column.capacity()) * sizeof(T))) return false;
  try {
    column.reserve(grown);
  } catch (const std::bad_alloc&) {
    return false;
  }
  return true;
}

void Recorder::on_surviving_references(std::span<const uint64_t> starts, std::span<const uint64_t> lengths) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!batch_ || starts.size() != lengths.size()) return;
  if (!reserve_for(batch_->surviving_starts, starts.size()) ||
      !reserve_for(batch_->surviving_lengths, starts.size())) {
    batch_->drops.ranges += starts.size();
    note_drop();
    return;
  }
  append(batch_->surviving_starts, starts);
  append(batch_->surviving_lengths, lengths);
}

void Recorder::on_moved_references(std::span<const uint64_t> old_starts, std::span<const uint64_t> new_starts,
                                   std::span<const uint64_t> lengths) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!batch_ || old_starts.size() != new_starts.size() || old_starts.size() != lengths.size()) return;
  batch_->info.compacted = true;
  size_t n = old_starts.size();
  if (!reserve_for(batch_->moved_old_starts, n) || !reserve_for(batch_->moved_new_starts, n) ||
      !reserve_for(batch_->moved_lengths, n)) {
    batch_->drops.ranges += n;
    note_drop();
    return;
  }
  append(batch_->moved_old_starts, old_starts);
  append(batch_->moved_new_starts, new_starts);
  append(batch_->moved_lengths, lengths);
}

void Recorder::on_root_references(std::span<const uint64_t> object_ids, std::span<const uint32_t> kinds,
                                  std::span<const uint32_t> flags, std::span<const uint64_t> root_ids) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t n = object_ids.size();
    if (!batch_ || kinds.size() != n || flags.size() != n || root_ids.size() != n) return;
    if (!reserve_for(batch_->root_objects, n) || !reserve_for(batch_->root_kinds, n) ||
        !reserve_for(batch_->root_flags, n) || !reserve_for(batch_->root_ids, n)) {
      batch_->drops.roots += n;
      note_drop();
      return;
    }
    append(batch_->root_objects, object_ids);
    append(batch_->root_ids, root_ids);
    for (size_t i = 0; i < n; ++i) {
      batch_->root_kinds.push_back(static_cast<uint8_t>(kinds[i] <= 3 ? kinds[i] : 0));
      batch_->root_flags.push_back(static_cast<uint8_t>(flags[i] & root_flags::kAll));
    }
  }
  // Outside the lock: storing a frozen target may open a chunk, and next_chunk takes mutex_
  // itself (holding it here deadlocked the app on a string-literal stack root). At a walked GC
  // the profiler's root scan and heap walk run on the one walking thread, as
  // on_object_references assumes.
  if (walking_.load() && frozen_span_ != 0) add_non_gc_targets(object_ids);
}

void Recorder::on_dependent_handles(std::span<const uint64_t> primaries, std::span<const uint64_t> secondaries) {
  // The runtime scans dependent handles at every GC once Callback5 is answered; only a GC
  // with a heap walk can use them, so the others cost one relaxed load here.
  if (!walking_.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t n = primaries.size();
  if (!batch_ || !walking_.load() || secondaries.size() != n) return;
  if (!reserve_for(batch_->dependent_primaries, n) || !reserve_for(batch_->dependent_secondaries, n)) {
    batch_->dependent_handles_dropped += n;
    batch_->drops.references += n;
    note_drop();
    return;
  }
  append(batch_->dependent_primaries, primaries);
  append(batch_->dependent_secondaries, secondaries);
}

uint64_t Recorder::heap_bytes_now() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return heap_known_ ? heap_bytes_ : 0;
}

void Recorder::note_heap_bytes(uint64_t heap_bytes) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (heap_known_ || heap_bytes == 0) return;
  heap_bytes_ = heap_bytes;
  heap_known_ = true;
}

void Recorder::on_gc_finished(std::span<const GenerationRange> bounds, uint64_t now_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!batch_) return;
  if (!active_.load()) {
    walking_.store(false);
    chunk_ = nullptr;
    batch_.reset();
    return;
  }
  GcBatch& b = *batch_;
  if (reserve_for(b.bounds, bounds.size())) {
    append(b.bounds, bounds);
  } else {
    b.drops.ranges += bounds.size();
    note_drop();
  }
  resolve_new_methods();
  if (!walk_abandoned_) resolve_delegate_targets();
  const bool walk_begun = b.has_heap_walk();
  if (walk_abandoned_) discard_abandoned_walk();
  b.info.end_time_ns = now_ns;
  const uint64_t heap = heap_in_use_bytes(bounds);
  heap_bytes_ = heap;
  heap_known_ = true;
  if (b.has_heap_walk()) {
    ++stats_.snapshots;
    walked_before_ = true;
    last_walk_ns_ = now_ns > b.info.start_time_ns ? now_ns - b.info.start_time_ns : 0;
    last_walk_end_ns_ = now_ns;
    last_walk_heap_bytes_ = heap;
    // What the walk stored (not the chunks' capacity): the part that grows with the heap.
    last_walk_bytes_ = b.object_count() * sizeof(ObjectRecord) +
                       b.reference_count() * (sizeof(uint64_t) + (b.has_reference_slots ? sizeof(uint32_t) : 0));
    if (answering_request_) last_on_demand_gc_.store(b.info.gc_number);
    // Any walk answers a follow-up a policy asked for before it (walks_follow_gcs): the heap
    // it shows is after that GC, as the follow-up's would be.
    follow_up_.store(0);
  }
  stats_.dropped_items += b.drops.objects + b.drops.roots + b.drops.ranges;
  stats_.size_queries = size_queries_;
  stats_.size_predictions = size_predictions_;
  stats_.size_mismatches = size_mismatches_;
  stats_.size_checks = size_checks_;
  stats_.types_named = types_named_;
  stats_.type_naming_ns = type_naming_ns_;
#if defined(__x86_64__)
  _mm_sfence();  // the chunks' non-temporal stores are visible before the writer thread reads them
#endif
  walking_.store(false);
  chunk_ = nullptr;
  if (pool_ && walk_begun) pool_->walk_done();
  sink_.submit(std::move(batch_));
}

void Recorder::stop() noexcept {
  active_.store(false);
  std::lock_guard<std::mutex> lock(mutex_);
  // A heap walk in progress keeps its batch: the walking thread appends without the lock and
  // on_gc_finished discards it. Otherwise the open GC is discarded now.
  if (walking_.load()) return;
  batch_.reset();
}

RecorderStats Recorder::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace gcsnap::shim
