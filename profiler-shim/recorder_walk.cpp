// The heap walk's storage: objects copied into chunks, their reference slots, the frozen
// objects they reach, and the memory cap that abandons a walk which does not fit.
#include "recorder.hpp"

#include <algorithm>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "shim_log.hpp"
#include "slot_search.hpp"
#include "walk_sizing.hpp"
#include "writer_thread.hpp"

namespace gcsnap::shim {
namespace {

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

}  // namespace

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
  b.delegate_codes.clear();
  drop_values(b);
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
  if (info && info->method_ptr_offset != 0 && batch_->has_reference_slots) note_delegate(*info, object_id);
  if (info && info->value_rule != 0 && batch_->values_captured) read_values(object_id, class_id, info->value_rule);
  // Inline: one compare per reference, a call only for a target in the frozen bounds (rare).
  if (frozen_span_ != 0) {
    for (uint64_t target : references) {
      if (in_frozen(target)) [[unlikely]] add_non_gc_target(target);
    }
  }
  return true;
}

void Recorder::drop_values(GcBatch& b) noexcept {
  b.values_captured = false;
  b.string_values = {};
  b.content_addresses = {};
  b.content_chars = {};
  b.content_lengths = {};
  b.content_text = {};
  b.collection_values = {};
}

void Recorder::read_values(uint64_t object_id, uint64_t class_id, uint8_t rule) noexcept {
  // Values are charged to the memory budget like the walk's chunks: out of budget or memory,
  // this walk keeps its objects and loses its values (the block then has no value sections).
  const size_t before = batch_->string_values.capacity() + batch_->collection_values.capacity();
  try {
    values_->read(object_id, class_id, static_cast<ValueRule>(rule), *batch_);
  } catch (const std::bad_alloc&) {
    drop_values(*batch_);
    return;
  }
  const size_t grown = batch_->string_values.capacity() + batch_->collection_values.capacity() - before;
  if (grown == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);  // the budget is shared with the ranges callbacks
  if (!charge(grown * sizeof(StringValue))) drop_values(*batch_);
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
    const uint64_t class_id = queries_.class_of(address);
    FrozenObject info{type_id_for(class_id, address), queries_.object_size(address), class_id};
    cached = frozen_objects_.emplace(address, info).first;
  }
  if (!store_object(address, cached->second.type_id, cached->second.size, {})) return;
  // Frozen string literals are strings like any other: their copies on the GC heap are duplicates.
  if (!b.values_captured) return;
  const uint64_t class_id = cached->second.class_id;
  if (const ClassInfo* info = class_id ? classes_.find(class_id) : nullptr; info && info->value_rule != 0)
    read_values(address, class_id, info->value_rule);
}

}  // namespace gcsnap::shim
