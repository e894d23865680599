// The recorder's decisions at the start of a GC: whether the policy walks it, what a walk
// would cost in time and memory, and whether the memory cgroup has room for it.
#include "recorder.hpp"

#include "shim_log.hpp"
#include "walk_sizing.hpp"
#include "writer_thread.hpp"

namespace gcsnap::shim {
namespace {

constexpr uint8_t kGen2Bit = 0x4;

}  // namespace

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

bool Recorder::within_walk_budget(uint64_t estimate_ns, uint64_t since_ns, uint32_t per_mille) noexcept {
  if (per_mille >= 1000) return true;
  // Walks take at most per_mille/1000 of the wall time from the end of the last walked GC to
  // the end of this one: estimate <= per_mille/1000 * (since + estimate)
  // <=> estimate * (1000 - per_mille) <= per_mille * since. In double: no overflow.
  return static_cast<double>(estimate_ns) * (1000 - per_mille) <= static_cast<double>(since_ns) * per_mille;
}

bool Recorder::fits_walk_budget(uint32_t per_mille, uint64_t now_ns) noexcept {
  // Before the first walk the heap's size is unknown until a GC has finished: no walk.
  const uint64_t from = walked_before_ ? last_walk_end_ns_ : options_.start_ns;
  const uint64_t since = now_ns > from ? now_ns - from : 0;
  const uint64_t estimate = estimated_walk_ns();
  if ((walked_before_ || heap_known_) && within_walk_budget(estimate, since, per_mille)) return true;
  WalkSkip skip;
  skip.reason = walk_skip_reason::kWalkTimeBudget;
  skip.budget_per_mille = per_mille;
  skip.last_walk_ns = walked_before_ ? last_walk_ns_ : 0;
  skip.since_last_walk_ns = since;
  skip.estimated_walk_ns = estimate;
  batch_->walk_skip = skip;
  ++stats_.walks_skipped;
  return false;
}

SnapshotTrigger Recorder::policy_pick(bool gen2, bool induced) const noexcept {
  switch (options_.policy) {
    case SnapshotPolicy::All: return SnapshotTrigger::Always;
    case SnapshotPolicy::Default: return gen2 || induced ? SnapshotTrigger::Policy : SnapshotTrigger::None;
    case SnapshotPolicy::Gen2: return gen2 ? SnapshotTrigger::Policy : SnapshotTrigger::None;
    case SnapshotPolicy::Induced: return induced ? SnapshotTrigger::Policy : SnapshotTrigger::None;
    case SnapshotPolicy::None: break;
  }
  return SnapshotTrigger::None;
}

SnapshotTrigger Recorder::decide_trigger(uint8_t generations_mask, bool induced, uint64_t now_ns,
                                         bool may_walk) noexcept {
  const bool gen2 = (generations_mask & kGen2Bit) != 0;
  const bool follow = options_.walks_follow_gcs;
  answering_request_ = false;
  // A requested walk (on demand, or a follow-up) is answered by the induced full GC that
  // ForceGC produces. So the follow-up's own GC never asks for another.
  if (may_walk && induced && gen2) {
    if (const uint8_t requested = requested_.exchange(0)) {
      answering_request_ = true;
      return static_cast<SnapshotTrigger>(requested);
    }
  }
  // A GC handed over at its end is never walked; with the events source a follow-up may answer it.
  if ((!may_walk && !follow) || policy_snapshots_ >= options_.max_snapshots) return SnapshotTrigger::None;
  const SnapshotTrigger trigger = policy_pick(gen2, induced);
  if (trigger == SnapshotTrigger::None) return trigger;
  if (follow && follow_up_.load() != 0) {
    ++stats_.follow_ups_folded;  // one follow-up at a time: this GC is folded into the wanted one
    return SnapshotTrigger::None;
  }
  // The default policy's budget: its gen2 GCs not induced, and with the events source every walk
  // it asks for (each costs a full GC of its own). The other policies' follow-ups: their own
  // budget, from the last walk's measured duration (the first is taken: the user asked for it,
  // and a guess from the heap's size could put it off for minutes).
  if (options_.policy == SnapshotPolicy::Default && (follow || !induced)) {
    if (!fits_walk_budget(options_.walk_budget_per_mille, now_ns)) return SnapshotTrigger::None;
  } else if (follow && walked_before_ && !fits_walk_budget(options_.follow_up_budget_per_mille, now_ns)) {
    return SnapshotTrigger::None;
  }
  if (!sink_.walk_fits(options_.max_file_bytes)) {
    // §6.17: the walk would only be dropped again once written.
    WalkSkip skip;
    skip.reason = walk_skip_reason::kSizeCap;
    skip.last_walk_ns = walked_before_ ? last_walk_ns_ : 0;
    const uint64_t from = walked_before_ ? last_walk_end_ns_ : options_.start_ns;
    skip.since_last_walk_ns = now_ns > from ? now_ns - from : 0;
    batch_->walk_skip = skip;
    ++stats_.walks_skipped;
    return SnapshotTrigger::None;
  }
  ++policy_snapshots_;
  if (!follow) return trigger;
  follow_up_.store(static_cast<uint8_t>(trigger));
  ++stats_.follow_ups;
  return SnapshotTrigger::None;
}

uint64_t Recorder::expected_walk_bytes(uint64_t heap_bytes) const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!walked_before_) return 0;
  if (last_walk_heap_bytes_ == 0) return last_walk_bytes_;
  const double scaled = static_cast<double>(last_walk_bytes_) * static_cast<double>(heap_bytes) /
                        static_cast<double>(last_walk_heap_bytes_);
  return scaled >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(scaled) + 1;
}

}  // namespace gcsnap::shim
