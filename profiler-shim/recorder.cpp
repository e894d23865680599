#include "recorder.hpp"

#include <algorithm>
#include <cstdio>

#include "shim_log.hpp"
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

template <typename T>
void append(std::vector<T>& column, std::span<const T> values) {
  column.insert(column.end(), values.begin(), values.end());
}

}  // namespace

Recorder::Recorder(const RecorderOptions& options, RuntimeQueries& queries, BatchSink& sink)
    : options_(options), queries_(queries), sink_(sink) {}

SnapshotTrigger Recorder::decide_trigger(uint8_t generations_mask, bool induced) noexcept {
  bool gen2 = (generations_mask & kGen2Bit) != 0;
  // An on-demand request is answered by the induced full GC that ForceGC produces.
  if (induced && gen2 && on_demand_pending_.exchange(false)) return SnapshotTrigger::OnDemand;
  if (policy_snapshots_ >= options_.max_snapshots) return SnapshotTrigger::None;
  SnapshotTrigger trigger = SnapshotTrigger::None;
  switch (options_.policy) {
    case SnapshotPolicy::All: trigger = SnapshotTrigger::Always; break;
    case SnapshotPolicy::Default: trigger = (gen2 || induced) ? SnapshotTrigger::Policy : trigger; break;
    case SnapshotPolicy::Gen2: trigger = gen2 ? SnapshotTrigger::Policy : trigger; break;
    case SnapshotPolicy::Induced: trigger = induced ? SnapshotTrigger::Policy : trigger; break;
    case SnapshotPolicy::None: break;
  }
  if (trigger != SnapshotTrigger::None) ++policy_snapshots_;
  return trigger;
}

bool Recorder::on_gc_started(uint8_t generations_mask, bool induced, uint64_t now_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_.load()) return false;
  if (batch_) {
    // The runtime never finished the previous GC for us: keep its names, drop the rest.
    append<OwnedType>(carried_types_, batch_->types);
    append<OwnedMethod>(carried_methods_, batch_->methods);
    batch_.reset();
  }
  batch_ = std::make_unique<GcBatch>();
  GcInfo& info = batch_->info;
  info.gc_number = ++gc_count_;
  info.generations_collected = generations_mask;
  info.reason = induced ? GcReason::Induced : GcReason::Other;
  info.start_time_ns = now_ns;
  info.trigger = decide_trigger(generations_mask, induced);
  batch_->types = std::move(carried_types_);
  batch_->methods = std::move(carried_methods_);
  carried_types_.clear();
  carried_methods_.clear();
  frozen_seen_this_gc_.clear();
  bool walk = info.trigger != SnapshotTrigger::None;
  walking_.store(walk);
  if (walk) {
    // Size the columns from the last walk so the GC thread rarely reallocates.
    reserve_for(batch_->object_addresses, last_walk_objects_);
    reserve_for(batch_->object_sizes, last_walk_objects_);
    reserve_for(batch_->object_types, last_walk_objects_);
    reserve_for(batch_->object_ref_counts, last_walk_objects_);
    reserve_for(batch_->references, last_walk_references_);
  }
  return walk;
}

void Recorder::set_non_gc_ranges(std::span<const AddressRange> ranges) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (batch_) batch_->non_gc_ranges.assign(ranges.begin(), ranges.end());
}

bool Recorder::charge(size_t bytes) noexcept {
  if (batch_->accounted_bytes + sink_.queued_bytes() + bytes > options_.memory_budget_bytes) return false;
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
  if (walking_.load() && !batch_->non_gc_ranges.empty()) {
    for (uint64_t target : object_ids) add_non_gc_target(target);
  }
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

uint32_t Recorder::type_id_for(uint64_t class_id) {
  if (class_id == 0) return 0;
  CachedType& cached = type_cache_[((class_id >> 3) ^ (class_id >> 11)) % kTypeCacheSize];
  if (cached.class_id == class_id) return cached.type_id;
  auto found = type_ids_.find(class_id);
  if (found != type_ids_.end()) {
    cached = CachedType{class_id, found->second};
    return found->second;
  }
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
  return id;
}

bool Recorder::on_object_references(uint64_t object_id, uint64_t class_id, std::span<const uint64_t> references) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!batch_ || !walking_.load()) return false;
  GcBatch& b = *batch_;
  bool frozen_ranges = !b.non_gc_ranges.empty();
  if (frozen_ranges && in_ranges(object_id, b.non_gc_ranges) && !frozen_seen_this_gc_.insert(object_id).second) {
    return true;  // already added as a reference target
  }
  uint32_t type_id = type_id_for(class_id);
  uint64_t size = queries_.object_size(object_id);
  if (b.drops.objects != 0 || !reserve_for(b.object_addresses, 1) || !reserve_for(b.object_types, 1) ||
      !reserve_for(b.object_sizes, 1) || !reserve_for(b.object_ref_counts, 1) ||
      !reserve_for(b.references, references.size())) {
    b.drops.objects += 1;
    b.drops.references += references.size();
    note_drop();
    return true;
  }
  b.object_addresses.push_back(object_id);
  b.object_types.push_back(type_id);
  b.object_sizes.push_back(size);
  b.object_ref_counts.push_back(static_cast<uint32_t>(references.size()));
  append(b.references, references);
  if (frozen_ranges) {
    for (uint64_t target : references) add_non_gc_target(target);
  }
  return true;
}

void Recorder::add_non_gc_target(uint64_t address) {
  GcBatch& b = *batch_;
  if (address == 0 || !in_ranges(address, b.non_gc_ranges)) return;
  if (!frozen_seen_this_gc_.insert(address).second) return;
  auto cached = frozen_objects_.find(address);
  if (cached == frozen_objects_.end()) {
    // Frozen objects never move and are never freed, so one look-up per address suffices.
    FrozenObject info{type_id_for(queries_.class_of(address)), queries_.object_size(address)};
    cached = frozen_objects_.emplace(address, info).first;
  }
  if (b.drops.objects != 0 || !reserve_for(b.object_addresses, 1) || !reserve_for(b.object_types, 1) ||
      !reserve_for(b.object_sizes, 1) || !reserve_for(b.object_ref_counts, 1)) {
    b.drops.objects += 1;
    note_drop();
    return;
  }
  b.object_addresses.push_back(address);
  b.object_types.push_back(cached->second.type_id);
  b.object_sizes.push_back(cached->second.size);
  b.object_ref_counts.push_back(0);
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
  GcBatch& b = *batch_;
  if (reserve_for(b.bounds, bounds.size())) {
    append(b.bounds, bounds);
  } else {
    b.drops.ranges += bounds.size();
    note_drop();
  }
  resolve_new_methods();
  b.info.end_time_ns = now_ns;
  if (b.has_heap_walk()) {
    last_walk_objects_ = b.object_addresses.size();
    last_walk_references_ = b.references.size();
    ++stats_.snapshots;
    if (b.info.trigger == SnapshotTrigger::OnDemand) last_on_demand_gc_.store(b.info.gc_number);
  }
  ++stats_.gcs_seen;
  stats_.dropped_items += b.drops.objects + b.drops.roots + b.drops.ranges;
  walking_.store(false);
  sink_.submit(std::move(batch_));
}

void Recorder::stop() noexcept {
  active_.store(false);
  std::lock_guard<std::mutex> lock(mutex_);
  batch_.reset();
  walking_.store(false);
}

RecorderStats Recorder::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace gcsnap::shim
