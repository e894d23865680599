#pragma once
// One recording session per load of the profiler: owns the settings, the writer thread, the
// recorder, the control socket and the runtime queries. The callback class forwards to it; it
// turns COM arrays into spans for the recorder. Created at Initialize or InitializeForAttach,
// never freed: a callback racing Shutdown or a late control thread can still touch it safely
// (the library is linked -z nodelete, so its code stays mapped after a detach too). An
// attached session frees its heavy parts once the runtime says ProfilerDetachSucceeded.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "control_server.hpp"
#include "follow_up_walker.hpp"
#include "heap_growth.hpp"
#include "cor_profiler_abi.hpp"
#include "recorder.hpp"
#include "runtime_queries.hpp"
#include "runtime_statics.hpp"
#include "settings.hpp"
#include "walk_timer.hpp"
#include "writer_thread.hpp"

namespace gcsnap::shim {

/// The clock of the recorder's times: wall-clock nanoseconds since the epoch.
uint64_t now_ns() noexcept;
/// HR as "0x%08x", for the one line that turns recording off.
std::string hresult_text(com::HRESULT hr);

class GcEventStream;
class RecorderEventSink;

class ShimSession {
 public:
  /// Return the live session (the one the guard turns off), or nullptr.
  static ShimSession* current() noexcept;
  /// Return a session that never records: what a callback object without one forwards to.
  static ShimSession& idle();

  com::HRESULT on_initialize(com::IUnknown* info_unknown);
  void on_shutdown() noexcept;
  // Attach (shim_attach.cpp).
  com::HRESULT on_initialize_for_attach(com::IUnknown* info_unknown, const void* client_data, uint32_t size);
  void on_attach_complete() noexcept;
  void on_detach_succeeded() noexcept;
  void on_gc_started(int generation_count, const com::BOOL* collected, com::COR_PRF_GC_REASON reason);
  /// An event of the shim's own EventPipe session (GCTriggered is the one it reads).
  void on_runtime_event(uint32_t event_id, std::span<const uint8_t> payload) noexcept;
  /// Any event of the shim's EventPipe sessions: to the events source when it runs, else to
  /// on_runtime_event (shim_events.cpp).
  void on_pipe_event(uint64_t provider, uint32_t id, uint32_t version, std::span<const uint8_t> payload) noexcept;
  /// The runtime's allocated-by-class statistic (counted for GCSNAP_DIAGNOSTICS only).
  void on_objects_allocated_by_class() noexcept {
    allocated_by_class_calls_.fetch_add(1, std::memory_order_relaxed);
  }
  void on_surviving_references(std::span<const uint64_t> starts, std::span<const uint64_t> lengths);
  void on_moved_references(std::span<const uint64_t> old_starts, std::span<const uint64_t> new_starts,
                           std::span<const uint64_t> lengths);
  void on_root_references(std::span<const uint64_t> objects, std::span<const uint32_t> kinds,
                          std::span<const uint32_t> flags, std::span<const uint64_t> root_ids);
  bool on_object_references(uint64_t object, uint64_t class_id, std::span<const uint64_t> references);
  void on_dependent_handles(std::span<const uint64_t> primaries, std::span<const uint64_t> secondaries);
  void on_gc_finished();
  /// Module loads feed the statics table (named statics, docs/shim.md "Field names").
  void on_module_loaded(uint64_t module, com::HRESULT status) noexcept;
  void on_module_unloading(uint64_t module) noexcept;

  /// The GC facts come from the events source: the profiling API's GC callbacks are ignored.
  bool from_events() const noexcept { return event_stream_ != nullptr; }
  bool is_recording() const noexcept {
    return ready_.load(std::memory_order_acquire) && recorder_->is_active() && !off_.load();
  }
  /// Turn recording off (the guard and the writer thread call this); say WHY once.
  void turn_off(const char* where, const char* why) noexcept;

 private:
  friend class RecorderEventSink;
  com::HRESULT cancel(const std::string& why);
  bool query_info(com::IUnknown* info_unknown);
  bool open_output();
  void make_current();
  void stop_being_current() noexcept;
  bool start_control_socket();
  void set_up_statics();
  com::DWORD event_mask() const noexcept;
  /// Set event_mask(), with the .NET 11 flag that skips the runtime's allocated-by-class walk
  /// where the runtime has it (the plain mask where it refuses it: 11.0.0 after an attach).
  com::HRESULT apply_event_mask() noexcept;
  /// The runtime's major version (8 for .NET 8), 0 if it does not say.
  int runtime_major() const noexcept;
  /// GCSNAP_DIAGNOSTICS=1: the line saying which runtime, event masks and session are in use
  /// (at startup), and how many ObjectsAllocatedByClass callbacks came (at shutdown).
  void say_diagnostics() const;
  /// On .NET 8, at startup, start an EventPipe session for the GCTriggered event, whose reason
  /// says induced where the profiler callback says other. Not on attach: starting a session
  /// runs managed code in the app (EventSource, dynamic methods) that an on-demand snapshot
  /// would then show. Nothing happens if the runtime refuses.
  void start_gc_reason_events() noexcept;
  void start_recording(std::unique_ptr<Writer> writer);
  // The events source (shim_events.cpp): its event mask and continuous session, the sessions'
  // stop (before a detach), and a heap walk through the heap-dump session.
  com::HRESULT start_event_source() noexcept;
  void stop_event_sessions() noexcept;
  /// A walk through the dump session, marked TRIGGER (OnDemand; Policy or Always for a
  /// follow-up walk); the control reply.
  std::string take_event_snapshot(SnapshotTrigger trigger = SnapshotTrigger::OnDemand);
  /// The follow-up walk the recorder wants, from the follow-up walker's thread.
  void take_follow_up_walk();
  // Allocation sites (shim_alloc_sites.cpp): after the event mask is set, the mask bits and the
  // sampling session; a sampling event (true: it was one); the session's stop before a detach.
  void start_alloc_sites() noexcept;
  bool on_alloc_event(uint32_t id, uint32_t version, std::span<const uint8_t> payload) noexcept;
  void stop_alloc_session() noexcept;
  void say_event_counts() const;  ///< GCSNAP_DIAGNOSTICS=1, at shutdown
  void say_alloc_counts() const;  ///< GCSNAP_DIAGNOSTICS=1, at shutdown
  std::string handle_request(const std::string& request);
  std::string take_snapshot();
  /// The --on-heap-growth walk, from the walker's thread: take_snapshot when no other request
  /// runs (gives up when detaching or shutting down).
  std::string take_growth_snapshot();
  void prepare_chunks_for_walk() noexcept;
  /// The managed heap's in-use bytes now (GetGenerationBounds), 0 when the runtime does not say.
  uint64_t read_heap_in_use() noexcept;
  void read_non_gc_ranges();
  // Attach (shim_attach.cpp).
  std::string accept_output();
  std::string detach(bool from_control_thread) noexcept;
  void watch() noexcept;

  Settings settings_;
  com::ICorProfilerInfo4* info_ = nullptr;
  com::ICorProfilerInfo14* info14_ = nullptr;
  int info_version_ = 0;
  std::unique_ptr<Writer> pending_writer_;  ///< opened in Initialize, handed to the writer thread
  RuntimeInfoQueries* queries_ = nullptr;
  WriterThread* writer_thread_ = nullptr;
  ChunkPool* chunk_pool_ = nullptr;
  HeapGrowthWalker* growth_walker_ = nullptr;  ///< --on-heap-growth only; never freed
  FollowUpWalker* follow_up_walker_ = nullptr;  ///< the events source with a policy only; never freed
  std::atomic<bool> told_follow_up_{false};
  Recorder* recorder_ = nullptr;
  std::unique_ptr<WalkTimer> walk_timer_;  ///< GCSNAP_WALK_TIMES=1 only (measuring)
  ControlServer* control_ = nullptr;  ///< never freed: its thread may outlive a detach
  // Named statics (null with GCSNAP_FIELDS=0): never freed, a late module callback may touch them.
  StaticSlotTable* statics_ = nullptr;
  RuntimeStatics* statics_runtime_ = nullptr;
  std::atomic<bool> ready_{false};    ///< recorder_ and the writer are set up (release/acquire)
  std::vector<com::COR_PRF_GC_GENERATION_RANGE> raw_bounds_;
  std::vector<GenerationRange> bounds_;
  std::vector<AddressRange> non_gc_ranges_;
  bool output_existed_ = false;  ///< open_output failed because the file exists
  std::atomic<bool> off_{false};
  /// The reason of the last GCTriggered event not yet consumed by on_gc_started, or -1.
  std::atomic<int64_t> event_reason_{-1};
  bool reason_events_ = false;  ///< the GCTriggered session runs (set before recording starts)
  com::DWORD mask_low_ = 0, mask_high_ = 0;  ///< the event masks the runtime accepted
  // The events source only (never freed: a late event may still reach them).
  com::ICorProfilerInfo12* info12_ = nullptr;
  RecorderEventSink* event_sink_ = nullptr;
  GcEventStream* event_stream_ = nullptr;
  std::atomic<uint64_t> gc_session_{0};  ///< the continuous session, 0 once stopped
  // Allocation sites (never freed: a late event may still reach them).
  class ProfilerAllocRuntime* alloc_runtime_ = nullptr;
  class AllocSampler* alloc_sampler_ = nullptr;
  std::atomic<uint64_t> alloc_session_{0};
  std::atomic<bool> alloc_told_off_{false};
  std::atomic<bool> alloc_told_full_{false};
  std::atomic<uint64_t> allocated_by_class_calls_{0};
  std::atomic<bool> told_off_{false};
  std::atomic<bool> shut_down_{false};
  // Attach only.
  std::atomic<bool> detaching_{false};
  std::thread watchdog_;
  std::mutex request_mutex_;  ///< control requests and the watchdog's detach, one at a time
  std::mutex detach_mutex_;
  std::condition_variable detach_cv_;
  bool detach_stop_watch_ = false;
  bool detach_succeeded_ = false;
};

}  // namespace gcsnap::shim
