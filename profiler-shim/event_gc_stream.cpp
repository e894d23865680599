#include "event_gc_stream.hpp"

#include <algorithm>

#include "gc_trigger_event.hpp"

namespace gcsnap::shim {
namespace {

void drop_front(std::vector<uint64_t>& v, size_t n) { v.erase(v.begin(), v.begin() + static_cast<ptrdiff_t>(n)); }

}  // namespace

uint8_t GcEventStream::collected_mask(const GcStartEvent& start) noexcept {
  // The large and pinned object heaps are collected with gen2.
  constexpr uint8_t kOldHeaps = 0x4 | 0x8 | 0x10;
  // A BGC condemns gen2 only: the young generations are collected by the GCs it runs inside
  // itself, and its surviving ranges do not cover them (eventpipe-mode-facts.md, deaths).
  if (start.kind == GcKind::Background) return kOldHeaps;
  if (start.depth >= 2) return 0x3 | kOldHeaps;
  return static_cast<uint8_t>((2u << start.depth) - 1);
}

bool GcEventStream::on_event(uint64_t provider, uint32_t id, uint32_t version, std::span<const uint8_t> payload) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!provider_known_) {
    // Other providers' events (EventPipe's process info, id 1 v0) look like GCStart by id.
    if (id != gc_event::kStart || version < 2 || !parse_gc_start(payload)) return true;
    provider_known_ = true;
    provider_ = provider;
  }
  if (provider != provider_) return true;
  switch (id) {
    case gc_event::kStart:
      if (auto start = parse_gc_start(payload)) start_gc(*start);
      else return unreadable(id);
      return true;
    case gc_event::kEnd:
      if (auto end = parse_gc_end(payload)) end_gc(end->count);
      else return unreadable(id);
      return true;
    case gc_event::kSurviving:
    case gc_event::kMoved: return add_ranges(id, payload);
    case gc_event::kRootEdge:
    case gc_event::kDependentHandle:
    case gc_event::kNode:
    case gc_event::kEdge: return add_walk(id, payload);
    default: return true;  // the GC keyword's other events, GCGenerationRange
  }
}

void GcEventStream::start_gc(const GcStartEvent& start) {
  for (const OpenGc& gc : open_)
    if (gc.start.count == start.count) return;  // the same GCStart from the other session
  OpenGc gc;
  gc.start = start;
  gc.start_ns = now_ns_();
  gc.live = start.kind != GcKind::Background && !live_open_;
  if (gc.live) {
    live_open_ = true;
    nodes_ = {};
    next_node_ = 0;
    edges_.clear();
    next_edge_ = 0;
    (void)sink_.gc_started(collected_mask(start), is_induced_gc_reason(start.reason), true, gc.start_ns);
  }
  open_.push_back(std::move(gc));
}

void GcEventStream::end_gc(uint32_t count) {
  auto it = std::find_if(open_.begin(), open_.end(), [&](const OpenGc& gc) { return gc.start.count == count; });
  if (it == open_.end()) return;  // not open: the other session's GCEnd, or a GC begun before us
  OpenGc gc = std::move(*it);
  open_.erase(it);
  ++stats_.gcs;
  if (gc.start.kind == GcKind::Background) ++stats_.background_gcs;
  if (gc.start.kind == GcKind::Foreground) ++stats_.foreground_gcs;
  if (!gc.live) {
    hand_over_whole(gc);
    return;
  }
  const size_t left = (nodes_.addresses.size() - next_node_) + (edges_.size() - next_edge_);
  stats_.unmatched_edges += left;
  nodes_ = {};
  edges_.clear();
  next_node_ = next_edge_ = 0;
  live_open_ = false;
  sink_.gc_finished();
}

void GcEventStream::hand_over_whole(OpenGc& gc) {
  (void)sink_.gc_started(collected_mask(gc.start), is_induced_gc_reason(gc.start.reason), false, gc.start_ns);
  // Only batches with rows: the recorder marks a GC compacted at its first moved batch.
  if (!gc.surviving.starts.empty()) sink_.surviving(gc.surviving.starts, gc.surviving.lengths);
  if (!gc.moved.old_starts.empty()) sink_.moved(gc.moved.old_starts, gc.moved.new_starts, gc.moved.lengths);
  sink_.gc_finished();
}

bool GcEventStream::add_ranges(uint32_t id, std::span<const uint8_t> payload) {
  const bool surviving = id == gc_event::kSurviving;
  if (surviving ? !parse_surviving(payload, surviving_) : !parse_moved(payload, moved_)) return unreadable(id);
  if ((surviving ? surviving_.starts.size() : moved_.old_starts.size()) == 0) return true;
  if (open_.empty()) {
    ++stats_.stray;
    return true;
  }
  OpenGc& gc = open_.back();  // the innermost open GC (eventpipe-mode-facts.md)
  if (gc.live) {
    if (surviving) sink_.surviving(surviving_.starts, surviving_.lengths);
    else sink_.moved(moved_.old_starts, moved_.new_starts, moved_.lengths);
    return true;
  }
  auto append = [](std::vector<uint64_t>& to, const std::vector<uint64_t>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  if (surviving) {
    append(gc.surviving.starts, surviving_.starts);
    append(gc.surviving.lengths, surviving_.lengths);
  } else {
    append(gc.moved.old_starts, moved_.old_starts);
    append(gc.moved.new_starts, moved_.new_starts);
    append(gc.moved.lengths, moved_.lengths);
  }
  return true;
}

bool GcEventStream::add_walk(uint32_t id, std::span<const uint8_t> payload) {
  bool ok = false;
  switch (id) {
    case gc_event::kRootEdge: ok = parse_roots(payload, roots_); break;
    case gc_event::kDependentHandle: ok = parse_dependent_handles(payload, dependents_); break;
    case gc_event::kNode: ok = parse_nodes(payload, node_batch_); break;
    default: ok = parse_edges(payload, edge_batch_); break;
  }
  if (!ok) return unreadable(id);
  if (!live_open_) {
    ++stats_.stray;  // a walk of a GC kept aside cannot be stored (never seen: walks are blocking)
    return true;
  }
  if (id == gc_event::kRootEdge) {
    for (uint32_t& kind : roots_.kinds) kind = profiler_root_kind(kind);
    sink_.roots(roots_.objects, roots_.kinds, roots_.flags, roots_.root_ids);
  } else if (id == gc_event::kDependentHandle) {
    sink_.dependent_handles(dependents_.keys, dependents_.values);
  } else if (id == gc_event::kNode) {
    nodes_.addresses.insert(nodes_.addresses.end(), node_batch_.addresses.begin(), node_batch_.addresses.end());
    nodes_.types.insert(nodes_.types.end(), node_batch_.types.begin(), node_batch_.types.end());
    nodes_.edge_counts.insert(nodes_.edge_counts.end(), node_batch_.edge_counts.begin(), node_batch_.edge_counts.end());
    hand_over_nodes();
  } else {
    edges_.insert(edges_.end(), edge_batch_.begin(), edge_batch_.end());
    hand_over_nodes();
  }
  return true;
}

void GcEventStream::hand_over_nodes() {
  while (next_node_ < nodes_.addresses.size()) {
    const uint64_t need = nodes_.edge_counts[next_node_];
    if (need > edges_.size() - next_edge_) break;  // its edges are still to come
    sink_.object(nodes_.addresses[next_node_], nodes_.types[next_node_],
                 std::span<const uint64_t>(edges_.data() + next_edge_, static_cast<size_t>(need)));
    next_edge_ += static_cast<size_t>(need);
    ++next_node_;
    ++stats_.objects;
  }
  // Drop what was handed over once it is most of what is held: the runtime flushes node and
  // edge batches independently, so the two queues need not empty together, and a walk must
  // hold a batch or two, not the heap.
  if (next_node_ > 0 && next_node_ * 2 >= nodes_.addresses.size()) {
    drop_front(nodes_.addresses, next_node_), drop_front(nodes_.types, next_node_);
    drop_front(nodes_.edge_counts, next_node_);
    next_node_ = 0;
  }
  if (next_edge_ > 0 && next_edge_ * 2 >= edges_.size()) {
    drop_front(edges_, next_edge_);
    next_edge_ = 0;
  }
}

bool GcEventStream::unreadable(uint32_t id) {
  ++stats_.unreadable;
  if (problem_.empty()) problem_ = "an event with id " + std::to_string(id) + " has a payload of an unexpected layout";
  return false;
}

GcEventStats GcEventStream::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::string GcEventStream::problem() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return problem_;
}

}  // namespace gcsnap::shim
