#pragma once
// The events source (docs/shim.md "Sources"): turns the runtime's GC events, as the shim's own
// EventPipe sessions deliver them, into the same per-GC calls the profiling API's callbacks
// make, so the recorder, the writer and the format stay as they are. No COM types: tests feed it
// synthetic payloads.
//
// What it has to undo (eventpipe-mode-facts.md):
// - events of other providers arrive too: only the provider of the first GCStart v2 is read;
// - with two sessions (the continuous one and a walk's) GCStart/GCEnd come twice: a start of a
//   GC already open and an end of a GC not open are dropped;
// - GCs nest: a background GC (BGC) runs foreground and ephemeral GCs of its own before its
//   end; survival/movement batches belong to the innermost open GC;
// - one recorder GC is open at a time: a BGC (and anything that starts while a GC is being
//   recorded) is kept aside and handed over whole at its end; the others are handed over as
//   their events arrive, which a heap walk needs (its objects are not kept twice);
// - a walk's nodes and edges come in separate batches: each node is handed over once all of
//   its edges (which follow node order) have arrived.

#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "event_payloads.hpp"

namespace gcsnap::shim {

/// Where the stream hands each GC (the shim: the recorder; tests: a fake).
class GcEventSink {
 public:
  /// A GC begins. COLLECTED: bit g = generation g condemned. MAY_WALK: false for a GC handed
  /// over at its end (no heap walk can come). Returns true when the sink takes a heap walk.
  virtual bool gc_started(uint8_t collected, bool induced, bool may_walk, uint64_t start_ns) = 0;
  virtual void surviving(std::span<const uint64_t> starts, std::span<const uint64_t> lengths) = 0;
  virtual void moved(std::span<const uint64_t> old_starts, std::span<const uint64_t> new_starts,
                     std::span<const uint64_t> lengths) = 0;
  virtual void roots(std::span<const uint64_t> objects, std::span<const uint32_t> kinds,
                     std::span<const uint32_t> flags, std::span<const uint64_t> root_ids) = 0;
  virtual void dependent_handles(std::span<const uint64_t> keys, std::span<const uint64_t> values) = 0;
  virtual void object(uint64_t address, uint64_t type_id, std::span<const uint64_t> references) = 0;
  virtual void gc_finished() = 0;

 protected:
  ~GcEventSink() = default;
};

struct GcEventStats {
  uint64_t gcs = 0;             ///< GCs handed over
  uint64_t background_gcs = 0;  ///< of them, background ones
  uint64_t foreground_gcs = 0;  ///< of them, foreground ones (ephemeral GCs run inside a background GC)
  uint64_t unreadable = 0;      ///< payloads of a read event that did not parse
  uint64_t stray = 0;           ///< range or walk batches with no GC open
  uint64_t objects = 0;         ///< walk nodes handed over
  uint64_t unmatched_edges = 0; ///< edges left over (or missing) at a walk's end
};

class GcEventStream {
 public:
  /// NOW_NS: the callers' clock, read at each GCStart.
  GcEventStream(GcEventSink& sink, uint64_t (*now_ns)()) : sink_(sink), now_ns_(now_ns) {}

  /// One delivered event; PROVIDER is opaque (the runtime's provider handle). False when its
  /// payload was unreadable (problem() says which).
  bool on_event(uint64_t provider, uint32_t id, uint32_t version, std::span<const uint8_t> payload);
  GcEventStats stats() const;
  /// Why the stream stopped trusting its input (first unreadable payload), or "".
  std::string problem() const;

 private:
  struct OpenGc {
    GcStartEvent start;
    uint64_t start_ns = 0;
    bool live = false;  ///< handed to the sink as it goes (else kept here until its end)
    SurvivingBatch surviving;
    MovedBatch moved;
  };
  void start_gc(const GcStartEvent& start);
  void end_gc(uint32_t count);
  void hand_over_whole(OpenGc& gc);
  bool add_ranges(uint32_t id, std::span<const uint8_t> payload);
  bool add_walk(uint32_t id, std::span<const uint8_t> payload);
  void hand_over_nodes();
  bool unreadable(uint32_t id);
  static uint8_t collected_mask(const GcStartEvent& start) noexcept;

  GcEventSink& sink_;
  uint64_t (*now_ns_)();
  mutable std::mutex mutex_;  ///< server GC: one stream of events per heap, on its own thread
  bool provider_known_ = false;
  uint64_t provider_ = 0;
  std::vector<OpenGc> open_;  ///< started, not ended; innermost last
  bool live_open_ = false;    ///< one of open_ is live
  GcEventStats stats_;
  std::string problem_;
  // The walk of the live GC: nodes waiting for their edges, edges not yet given out.
  NodeBatch nodes_;
  size_t next_node_ = 0;
  std::vector<uint64_t> edges_;
  size_t next_edge_ = 0;
  // Scratch batches, reused.
  SurvivingBatch surviving_;
  MovedBatch moved_;
  NodeBatch node_batch_;
  std::vector<uint64_t> edge_batch_;
  RootBatch roots_;
  DependentBatch dependents_;
};

}  // namespace gcsnap::shim
