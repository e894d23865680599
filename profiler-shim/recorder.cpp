#include "recorder.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "shim_log.hpp"
#include "slot_search.hpp"
#include "walk_sizing.hpp"
#include "writer_thread.hpp"

namespace gcsnap::shim {
namespace {

constexpr uint8_t kGen2Bit = 0x4;

bool in_ranges(uint64_t address, std::span<const AddressRange> ranges) noexcept {
  for (const AddressRange& r : ranges) {
    if (address >= r.start && address - r.start < r.length) return true;
  }
  return false;
}

// Chunk columns are written once here and read once by the writer thread on another core:
// non-temporal stores keep them out of this core's cache, which the runtime's heap walk uses,
// and write whole lines without reading them first. on_gc_finished fences before the hand-off.
inline void stream_store(uint64_t* to, uint64_t value) noexcept {
#if defined(__x86_64__)
  _mm_stream_si64(reinterpret_cast<long long*>(to), static_cast<long long>(value));
#else
  *to = value;
#endif
}

inline void stream_store(uint32_t* to, uint32_t value) noexcept {
#if defined(__x86_64__)
  _mm_stream_si32(reinterpret_cast<int*>(to), static_cast<int>(value));
#else
  *to = value;
#endif
}

template <typename T>
void append(std::vector<T>& column, std::span<const T> values) {
  column.insert(column.end(), values.begin(), values.end());
}

}  // namespace

Recorder::Recorder(const RecorderOptions& options, RuntimeQueries& queries, BatchSink& sink, ChunkPool* pool)
    : options_(options), queries_(queries), sink_(sink), pool_(pool) {}

uint64_t Recorder::estimated_walk_ns() const noexcept {
  // A walk costs time in proportion to the live heap: scale what the last one took by how the
  // heap's size changed since. Before any walk, assume first_walk_ns_per_byte (a conservative
  // figure: bench/web.sh measured 2-15 ns per byte on a loaded 2-vCPU machine).
  double estimate = 0;
  if (walked_before_) {
    estimate = static_cast<double>(last_walk_ns_);
    if (last_walk_heap_bytes_ > 0 && heap_known_)
      estimate *= static_cast<double>(heap_bytes_) / static_cast<double>(last_walk_heap_bytes_);
  } else {
    estimate = static_cast<double>(heap_bytes_) * options_.first_walk_ns_per_byte;
  }
  return estimate >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(estimate);
}

uint64_t Recorder::estimated_walk_bytes() const noexcept {
  // A walk's buffers grow with the live heap as its time does (estimated_walk_ns): what the
  // last walk stored, scaled by the heap's growth since. Before any walk: one byte per byte of
  // heap (a stored object takes 24 bytes and 12 per reference with its slot, about what an
  // average object of 40-60 bytes with 2 references occupies). Plus one full chunk: buffers
  // are taken a chunk at a time.
  double estimate = static_cast<double>(heap_bytes_);
  if (walked_before_) {
    estimate = static_cast<double>(last_walk_bytes_);
    if (last_walk_heap_bytes_ > 0 && heap_known_)
      estimate *= static_cast<double>(heap_bytes_) / static_cast<double>(last_walk_heap_bytes_);
  }
  estimate += static_cast<double>(
      ObjectChunk::bytes_for(ObjectChunk::kObjects, ObjectChunk::kObjects * ObjectChunk::kReferencesPerObject));
  return estimate >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(estimate);
}

bool Recorder::has_headroom_for_walk() noexcept {
  uint64_t usage = 0, limit = 0;
  if (!options_.read_cgroup || !options_.read_cgroup(usage, limit)) return true;
  const uint64_t estimate = estimated_walk_bytes();
  const uint64_t queued = sink_.queued_bytes();
  const uint64_t need = estimate > UINT64_MAX - queued ? UINT64_MAX : estimate + queued;
  // A walk takes at most a quarter of the headroom (docs/shim.md "Memory"): the app keeps the
  // rest, and the walk is held to it while it runs (charge).
  const uint64_t share = cgroup_walk_share(usage, limit);
  if (share >= need) {
    walk_share_bytes_ = share;
    return true;
  }
  batch_->walk_skip = cgroup_headroom_skip(usage, limit, need > UINT64_MAX / 4 ? UINT64_MAX : need * 4);
  ++stats_.guard_skips;
  last_refused_gc_.store(batch_->info.gc_number);
  log_once(told_headroom_,
           "a heap walk was skipped: the memory cgroup's headroom is smaller than the walk would need; "
           "the file records each skip (gcsnap info)");
  return false;
}

bool Recorder::within_walk_budget(uint64_t estimate_ns, uint64_t since_ns) const noexcept {
  if (options_.walk_budget_per_mille >= 1000) return true;
  // Walks take at most budget/1000 of the wall time from the end of the last walked GC to the
  // end of this one: estimate <= budget/1000 * (since + estimate)
  // <=> estimate * (1000 - budget) <= budget * since. In double: no overflow.
  return static_cast<double>(estimate_ns) * (1000 - options_.walk_budget_per_mille) <=
         static_cast<double>(since_ns) * options_.walk_budget_per_mille;
}

SnapshotTrigger Recorder::decide_trigger(uint8_t generations_mask, bool induced, uint64_t now_ns) noexcept {
  bool gen2 = (generations_mask & kGen2Bit) != 0;
  // An on-demand request is answered by the induced full GC that ForceGC produces.
  if (induced && gen2 && on_demand_pending_.exchange(false)) return SnapshotTrigger::OnDemand;
  if (policy_snapshots_ >= options_.max_snapshots) return SnapshotTrigger::None;
  SnapshotTrigger trigger = SnapshotTrigger::None;
  switch (options_.policy) {
    case SnapshotPolicy::All: trigger = SnapshotTrigger::Always; break;
    case SnapshotPolicy::Default:
      if (induced) {
        trigger = SnapshotTrigger::Policy;
      } else if (gen2) {
        // Before the first walk the heap's size is unknown until a GC has finished: no walk.
        const uint64_t from = walked_before_ ? last_walk_end_ns_ : options_.start_ns;
        const uint64_t since = now_ns > from ? now_ns - from : 0;
        const uint64_t estimate = estimated_walk_ns();
        if ((walked_before_ || heap_known_) && within_walk_budget(estimate, since)) {
          trigger = SnapshotTrigger::Policy;
        } else {
          WalkSkip skip;
          skip.reason = walk_skip_reason::kWalkTimeBudget;
          skip.budget_per_mille = options_.walk_budget_per_mille;
          skip.last_walk_ns = walked_before_ ? last_walk_ns_ : 0;
          skip.since_last_walk_ns = since;
          skip.estimated_walk_ns = estimate;
          batch_->walk_skip = skip;
          ++stats_.walks_skipped;
        }
      }
      break;
    case SnapshotPolicy::Gen2: trigger = gen2 ? SnapshotTrigger::Policy : trigger; break;
    case SnapshotPolicy::Induced: trigger = induced ? SnapshotTrigger::Policy : trigger; break;
    case SnapshotPolicy::None: break;
  }
  if (trigger != SnapshotTrigger::None && !sink_.walk_fits(options_.max_file_bytes)) {
    // §6.17: the walk would only be dropped again once written.
    WalkSkip skip;
    skip.reason = walk_skip_reason::kSizeCap;
    skip.last_walk_ns = walked_before_ ? last_walk_ns_ : 0;
    const uint64_t from = walked_before_ ? last_walk_end_ns_ : options_.start_ns;
    skip.since_last_walk_ns = now_ns > from ? now_ns - from : 0;
    batch_->walk_skip = skip;
    ++stats_.walks_skipped;
    trigger = SnapshotTrigger::None;
  }
  if (trigger != SnapshotTrigger::None) ++policy_snapshots_;
  return trigger;
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
  info.trigger = may_walk ? decide_trigger(generations_mask, induced, now_ns) : SnapshotTrigger::None;
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

bool Recorder::charge(size_t bytes) noexcept {
  if (batch_->accounted_bytes + sink_.queued_bytes() + bytes > options_.memory_budget_bytes) return false;
  // Inside a memory cgroup the walk's buffers and the chunks kept ahead of it stay within the
  // walk's share of the headroom.
  if (walk_share_bytes_ != UINT64_MAX &&
      batch_->accounted_bytes + bytes + chunks_ahead_within(walk_share_bytes_, kFullChunkBytes) * kFullChunkBytes >
          walk_share_bytes_)
    return false;
  batch_->accounted_bytes += bytes;
  return true;
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

void Recorder::abandon_walk(size_t wanted_bytes) noexcept {
  if (walk_abandoned_) return;
  walk_abandoned_ = true;
  abandoned_held_bytes_ = batch_->accounted_bytes + sink_.queued_bytes() + wanted_bytes;
  abandoned_objects_ = batch_->object_count();
  log_once(told_memory_limit_,
           "memory cap reached (GCSNAP_MAX_MEMORY_MB): a heap walk was abandoned; the file records each one "
           "(gcsnap info), later GCs record as before");
}

void Recorder::discard_abandoned_walk() noexcept {
  GcBatch& b = *batch_;
  for (auto& chunk : b.objects) {
    b.accounted_bytes -= std::min<uint64_t>(b.accounted_bytes, chunk->bytes_for(chunk->object_capacity, chunk->reference_capacity));
    if (pool_) pool_->give_back(std::move(chunk));
  }
  b.objects.clear();
  b.dependent_primaries.clear();
  b.dependent_secondaries.clear();
  b.dependent_handles_dropped = 0;
  b.dependent_handles_captured = false;
  b.has_reference_slots = false;
  if (b.info.trigger != SnapshotTrigger::OnDemand && policy_snapshots_ > 0) --policy_snapshots_;
  b.info.trigger = SnapshotTrigger::None;
  // The cap that stopped it: the memory budget, or the walk's share of the cgroup's headroom.
  const uint64_t cap = std::min<uint64_t>(options_.memory_budget_bytes, walk_share_bytes_);
  b.walk_skip = memory_cap_skip(cap, abandoned_held_bytes_, abandoned_objects_);
  ++stats_.walks_abandoned;
  last_refused_gc_.store(b.info.gc_number);
}

void Recorder::note_drop() noexcept {
  batch_->drops.reasons |= drop_reason::kMemoryLimit;
  log_once(told_memory_limit_,
           "memory limit reached (GCSNAP_MAX_MEMORY_MB); dropping data, the file records what was dropped");
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

uint32_t Recorder::type_id_for(uint64_t class_id, uint64_t object_id) {
  if (class_id == 0) return 0;
  auto found = type_ids_.find(class_id);
  if (found != type_ids_.end()) return found->second;
  const auto started = std::chrono::steady_clock::now();
  RuntimeQueries::TypeName resolved = queries_.type_name(class_id);
  if (!resolved.resolved) batch_->drops.reasons |= drop_reason::kTypeUnresolved;
  if (resolved.name.empty()) {
    char text[48];
    std::snprintf(text, sizeof(text), "<unresolved type 0x%llx>", static_cast<unsigned long long>(class_id));
    resolved.name = text;
  }
  uint32_t id = next_type_id_++;
  type_ids_.emplace(class_id, id);
  batch_->types.push_back(OwnedType{id, class_id, std::move(resolved.name), std::move(resolved.module)});
  if (!classes_.find(class_id)) classes_.insert(class_id, id, resolved.size_kind);
  // The layout is per type too: resolved here, where the class is first registered.
  OwnedLayout layout;
  if (options_.capture_slots && queries_.type_layout(class_id, object_id, layout)) {
    layout.type_id = id;
    std::stable_sort(layout.fields.begin(), layout.fields.end(),
                     [](const OwnedField& a, const OwnedField& b) { return a.offset < b.offset; });
    batch_->layouts.push_back(std::move(layout));
  }
  ++types_named_;
  type_naming_ns_ += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count());
  return id;
}

ClassInfo* Recorder::class_info(uint64_t class_id, uint64_t object_id) {
  if (ClassInfo* info = classes_.find(class_id)) return info;
  uint32_t type_id = type_id_for(class_id, object_id);  // names a new class; inserts it into classes_
  if (ClassInfo* info = classes_.find(class_id)) return info;
  return classes_.insert(class_id, type_id, SizeKind::Unknown);  // named before, by a frozen object
}

uint64_t Recorder::object_size(ClassInfo* info, uint64_t object_id) {
  if (!info) {  // ClassID 0: nothing to learn
    ++size_queries_;
    return queries_.object_size(object_id);
  }
  const bool trusted = info->validations_left == 0 && !options_.verify_sizes;
  if (info->rule == SizeRule::Fixed && trusted) {
    ++size_predictions_;
    return info->base;
  }
  uint32_t count = info->rule == SizeRule::Fixed || info->rule == SizeRule::Ask ? 0 : queries_.component_count(object_id);
  if (info->rule == SizeRule::Components && trusted) {
    ++size_predictions_;
    return ClassCache::predict(*info, count);
  }
  if (info->rule == SizeRule::Learning && !options_.verify_sizes) {
    if (uint64_t size = ClassCache::predict_learning(*info, count)) {
      ++size_predictions_;
      return size;
    }
  }
  ++size_queries_;
  if (info->rule == SizeRule::Fixed || info->rule == SizeRule::Components) ++size_checks_;
  uint64_t size = queries_.object_size(object_id);
  if (!ClassCache::learn(*info, size, count)) ++size_mismatches_;
  return size;  // the runtime's answer is what is recorded
}

bool Recorder::next_chunk(size_t references) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);  // the budget is shared with the ranges callbacks
  // A full chunk, or smaller ones as the budget runs out, so that the drops start close to it.
  for (size_t objects = ObjectChunk::kObjects; objects >= 256; objects /= 2) {
    size_t refs = std::max(objects * ObjectChunk::kReferencesPerObject, references);
    // The last walk's large chunk (an object with more references than a full chunk holds),
    // already faulted in, when it fits: charged at its own size.
    std::unique_ptr<ObjectChunk> large;
    if (pool_ && objects == ObjectChunk::kObjects && refs > objects * ObjectChunk::kReferencesPerObject) {
      large = pool_->take_large(refs);
      if (large) refs = large->reference_capacity;
    }
    size_t bytes = ObjectChunk::bytes_for(objects, refs);
    if (!charge(bytes)) {
      if (large) pool_->give_back(std::move(large));
      continue;
    }
    try {
      batch_->objects.reserve(batch_->objects.size() + 1);
      std::unique_ptr<ObjectChunk> chunk = std::move(large);
      if (!chunk && pool_ && objects == ObjectChunk::kObjects && refs == objects * ObjectChunk::kReferencesPerObject) {
        chunk = pool_->take();
      }
      if (!chunk) chunk = std::make_unique<ObjectChunk>(objects, refs);
      batch_->objects.push_back(std::move(chunk));
    } catch (const std::bad_alloc&) {
      batch_->accounted_bytes -= bytes;
      return false;
    }
    chunk_ = batch_->objects.back().get();
    return true;
  }
  return false;
}

// One pass over the object's memory, which the runtime has just read: cheap while it is hot.
void Recorder::capture_slots(uint64_t object_id, uint64_t size, std::span<const uint64_t> references,
                             uint32_t* out) noexcept {
  if (references.empty()) return;
  const uint64_t* words = queries_.object_words(object_id);
  if (!words) {
    for (size_t i = 0; i < references.size(); ++i) out[i] = kUnknownSlot;
    return;
  }
  find_reference_slots({words, static_cast<size_t>(size / 8)}, references, out);
}

bool Recorder::store_object(uint64_t address, uint32_t type_id, uint64_t size, std::span<const uint64_t> references) {
  ObjectChunk* c = chunk_;
  if (!c || !c->fits(references.size())) {
    // The memory cap: a walk that does not fit is abandoned whole rather than kept with
    // holes (format-spec.md §6.15 reason 3).
    if (walk_abandoned_ || !next_chunk(references.size())) {
      abandon_walk(ObjectChunk::bytes_for(256, std::max<size_t>(256 * ObjectChunk::kReferencesPerObject, references.size())));
      return false;
    }
    c = chunk_;
  }
  ObjectRecord* r = c->records + c->objects++;
  stream_store(&r->address, address);
  stream_store(&r->size, size);
  stream_store(&r->type_id, type_id);
  stream_store(&r->reference_count, static_cast<uint32_t>(references.size()));
  uint64_t* out = c->references + c->reference_count;
  for (uint64_t target : references) stream_store(out++, target);  // mostly 0-3 targets: no memcpy call
  if (batch_->has_reference_slots) capture_slots(address, size, references, c->slots + c->reference_count);
  c->reference_count += references.size();
  return true;
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

uint64_t Recorder::expected_walk_bytes(uint64_t heap_bytes) const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!walked_before_) return 0;
  if (last_walk_heap_bytes_ == 0) return last_walk_bytes_;
  const double scaled = static_cast<double>(last_walk_bytes_) * static_cast<double>(heap_bytes) /
                        static_cast<double>(last_walk_heap_bytes_);
  return scaled >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(scaled) + 1;
}

bool Recorder::on_object_references(uint64_t object_id, uint64_t class_id, std::span<const uint64_t> references) {
  // No lock: only the walking thread touches the walk's state (batch_ stays while walking_,
  // stop() leaves it to on_gc_finished).
  if (!walking_.load(std::memory_order_relaxed) || !active_.load(std::memory_order_relaxed)) return false;
  if (walk_abandoned_) return false;
  if (frozen_span_ != 0 && in_frozen(object_id) && in_ranges(object_id, batch_->non_gc_ranges) &&
      !frozen_seen_this_gc_.insert(object_id).second) {
    return true;  // already added as a reference target
  }
  ClassInfo* info = class_id != 0 ? class_info(class_id, object_id) : nullptr;
  uint64_t size = object_size(info, object_id);
  // The reference slots are captured in store_object, after the size: one scan of the object.
  if (!store_object(object_id, info ? info->type_id : 0, size, references)) return false;  // ends the runtime's walk
  // Inline: one compare per reference, a call only for a target in the frozen bounds (rare).
  if (frozen_span_ != 0) {
    for (uint64_t target : references) {
      if (in_frozen(target)) [[unlikely]] add_non_gc_target(target);
    }
  }
  return true;
}

void Recorder::add_non_gc_targets(std::span<const uint64_t> targets) {
  for (uint64_t target : targets) {
    if (in_frozen(target)) add_non_gc_target(target);
  }
}

void Recorder::add_non_gc_target(uint64_t address) {
  GcBatch& b = *batch_;
  if (address == 0 || !in_ranges(address, b.non_gc_ranges)) return;
  if (!frozen_seen_this_gc_.insert(address).second) return;
  auto cached = frozen_objects_.find(address);
  if (cached == frozen_objects_.end()) {
    // Frozen objects never move and are never freed, so one look-up per address suffices.
    FrozenObject info{type_id_for(queries_.class_of(address), address), queries_.object_size(address)};
    cached = frozen_objects_.emplace(address, info).first;
  }
  store_object(address, cached->second.type_id, cached->second.size, {});
}

void Recorder::resolve_new_methods() {
  GcBatch& b = *batch_;
  for (size_t i = 0; i < b.root_ids.size(); ++i) {
    if (b.root_kinds[i] != static_cast<uint8_t>(RootKind::Stack) || b.root_ids[i] == 0) continue;
    if (!known_functions_.insert(b.root_ids[i]).second) continue;
    std::string name = queries_.method_name(b.root_ids[i]);
    if (!name.empty()) b.methods.push_back(OwnedMethod{b.root_ids[i], std::move(name)});
  }
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
  const bool walk_begun = b.has_heap_walk();
  if (walk_abandoned_) discard_abandoned_walk();
  b.info.end_time_ns = now_ns;
  uint64_t heap = 0;
  for (const GenerationRange& r : bounds) heap += r.length;
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
    if (b.info.trigger == SnapshotTrigger::OnDemand) last_on_demand_gc_.store(b.info.gc_number);
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
