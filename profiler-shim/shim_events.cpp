// The events source of a ShimSession (docs/shim.md "Sources"): no COR_PRF_MONITOR_GC, so the
// runtime keeps background GC; the GC facts come from the shim's own EventPipe sessions
// instead (eventpipe-mode-facts.md). A continuous session brings every GC's start, end,
// surviving and moved ranges; a heap walk is a second session, with the heap-dump keyword, around
// a GC the shim forces from its own thread. Also the profiler source's one session, for the
// GCTriggered event on .NET 8.
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "event_gc_stream.hpp"
#include "gc_trigger_event.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "shim_log.hpp"
#include "shim_session.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;

constexpr const WCHAR kRuntimeProvider[] = u"Microsoft-Windows-DotNETRuntime";
constexpr uint64_t kGcKeywords = 0x1;                  ///< GC: GCStart, GCEnd
constexpr uint64_t kSurvivalKeyword = 0x400000;        ///< GCHeapSurvivalAndMovement: events 21, 22
constexpr uint64_t kHeapDumpKeyword = 0x100000;        ///< GCHeapDump: events 16-19 at a GC
constexpr uint32_t kLevelVerbose = 5;
/// ForceGCs for one walk at most: a blocking full GC of the runtime's own can satisfy one.
constexpr int kForceAttempts = 3;

}  // namespace

/// The stream's sink: the recorder, as the profiling API's callbacks drive it.
class RecorderEventSink final : public GcEventSink {
 public:
  explicit RecorderEventSink(ShimSession& session) : s_(session) {}
  bool gc_started(uint8_t collected, bool induced, bool may_walk, uint64_t start_ns) override {
    if (!s_.recorder_->on_gc_started(collected, induced, start_ns, may_walk)) return false;
    if (s_.walk_timer_) s_.walk_timer_->arm();
    s_.read_non_gc_ranges();
    s_.recorder_->set_non_gc_ranges(s_.non_gc_ranges_);
    return true;
  }
  void surviving(std::span<const uint64_t> starts, std::span<const uint64_t> lengths) override {
    s_.recorder_->on_surviving_references(starts, lengths);
  }
  void moved(std::span<const uint64_t> old_starts, std::span<const uint64_t> new_starts,
             std::span<const uint64_t> lengths) override {
    s_.recorder_->on_moved_references(old_starts, new_starts, lengths);
  }
  void roots(std::span<const uint64_t> objects, std::span<const uint32_t> kinds, std::span<const uint32_t> flags,
             std::span<const uint64_t> root_ids) override {
    s_.recorder_->on_root_references(objects, kinds, flags, root_ids);
  }
  void dependent_handles(std::span<const uint64_t> keys, std::span<const uint64_t> values) override {
    s_.on_dependent_handles(keys, values);
  }
  void object(uint64_t address, uint64_t type_id, std::span<const uint64_t> references) override {
    (void)s_.on_object_references(address, type_id, references);  // TypeID is the ClassID
  }
  void gc_finished() override { s_.on_gc_finished(); }

 private:
  ShimSession& s_;
};

void ShimSession::start_gc_reason_events() noexcept {
  if (!settings_.gc_reason_events || runtime_major() != 8 || info_version_ < 12) return;
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG config{kRuntimeProvider, kGcKeyword, kLevelInformational, nullptr};
  EVENTPIPE_SESSION session = 0;
  auto* info12 = static_cast<ICorProfilerInfo12*>(info_);  // the object is an ICorProfilerInfoN, N >= 12
  reason_events_ = succeeded(info12->EventPipeStartSession(1, &config, 0, &session));
}

void ShimSession::on_runtime_event(uint32_t event_id, std::span<const uint8_t> payload) noexcept {
  if (event_id != kGcTriggeredEventId) return;
  if (auto reason = gc_triggered_reason(payload)) event_reason_.store(*reason);
}

HRESULT ShimSession::start_event_source() noexcept {
  if (info_version_ < 12) return E_NOINTERFACE;
  info12_ = static_cast<ICorProfilerInfo12*>(info_);  // the object is an ICorProfilerInfoN, N >= 12
  auto* info5 = static_cast<ICorProfilerInfo5*>(info_);
  // Never COR_PRF_MONITOR_GC: that is what turns background GC off. BASIC_GC keeps the
  // runtime's generation table up to date (GetGenerationBounds fails without it) and leaves
  // background GC on; its GC callbacks are ignored (profiler_callback.cpp).
  const DWORD low = statics_ ? COR_PRF_MONITOR_MODULE_LOADS : 0;
  const DWORD high = COR_PRF_HIGH_MONITOR_EVENT_PIPE | COR_PRF_HIGH_BASIC_GC;
  HRESULT hr = info5->SetEventMask2(low, high);
  if (!succeeded(hr)) return hr;
  mask_low_ = low, mask_high_ = high;
  settings_.gc_reason_events = false;  // GCStart carries the reason
  try {
    event_sink_ = new RecorderEventSink(*this);
    event_stream_ = new GcEventStream(*event_sink_, now_ns);
  } catch (...) {
    return E_OUTOFMEMORY;
  }
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG config{kRuntimeProvider, kGcKeywords | kSurvivalKeyword, kLevelInformational,
                                           nullptr};
  EVENTPIPE_SESSION session = 0;
  hr = info12_->EventPipeStartSession(1, &config, 0, &session);
  if (succeeded(hr)) gc_session_.store(session);
  return hr;
}

void ShimSession::stop_event_sessions() noexcept {
  if (!info12_) return;
  if (uint64_t session = gc_session_.exchange(0)) (void)info12_->EventPipeStopSession(session);
}

void ShimSession::on_pipe_event(uint64_t provider, uint32_t id, uint32_t version,
                                std::span<const uint8_t> payload) noexcept {
  if (!event_stream_) {
    on_runtime_event(id, payload);
    return;
  }
  if (!is_recording()) return;
  bool ok = false;
  try {
    ok = event_stream_->on_event(provider, id, version, payload);
  } catch (...) {
    turn_off("the events source", "out of memory");
    return;
  }
  if (!ok) turn_off("the events source", event_stream_->problem().c_str());
}

std::string ShimSession::take_event_snapshot(SnapshotTrigger trigger) {
  std::string error = std::string(kReplyError) + " ";
  if (detaching_.load()) return error + "gcsnap is detaching";
  if (!is_recording() || shut_down_.load()) return error + "recording is off";
  const uint64_t before = recorder_->last_on_demand_gc();
  const uint64_t refused_before = recorder_->last_refused_gc();
  prepare_chunks_for_walk();
  // Not the GCHeapCollect keyword: it forces the GC inside EventPipeStartSession, and on .NET 8
  // stopping such a session forces a second full GC (eventpipe-mode-facts.md, 4b).
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG config{kRuntimeProvider, kGcKeywords | kHeapDumpKeyword, kLevelVerbose, nullptr};
  EVENTPIPE_SESSION dump = 0;
  HRESULT hr = info12_->EventPipeStartSession(1, &config, 0, &dump);
  if (!succeeded(hr)) return error + "EventPipeStartSession for the walk failed with " + hresult_text(hr);
  recorder_->request_walk(trigger);
  // Legal here: a native thread of our own, not inside a callback. Every walk event is
  // delivered before ForceGC returns. ForceGC promises a blocking full GC since the call, not
  // one of its own: the runtime skips the GC when another blocking full GC (its own, not
  // induced, so not taken for the request) ends while ForceGC waits for the GC lock. The
  // request is then still pending: force once more.
  for (int attempt = 0; attempt < kForceAttempts; ++attempt) {
    hr = info_->ForceGC();
    if (!succeeded(hr) || !is_recording() || recorder_->last_on_demand_gc() != before ||
        recorder_->last_refused_gc() > refused_before)
      break;
  }
  recorder_->withdraw_on_demand();
  (void)info12_->EventPipeStopSession(dump);
  if (!succeeded(hr)) return error + "ForceGC failed with " + hresult_text(hr);
  const uint64_t after = recorder_->last_on_demand_gc();
  if (after == before && recorder_->last_refused_gc() > refused_before) {
    return error + "the walk was skipped (memory cgroup headroom or memory cap; gcsnap info says which)";
  }
  if (after == before) return error + "the forced GC was not recorded";
  return std::string(kReplyOk) + " " + std::to_string(after);
}

void ShimSession::take_follow_up_walk() {
  if (recorder_->follow_up_wanted() == SnapshotTrigger::None) return;
  std::string reply;
  {
    // One request at a time, as the control socket's; try_lock: detach holds request_mutex_
    // while it stops this thread.
    std::unique_lock<std::mutex> busy(request_mutex_, std::defer_lock);
    while (!busy.try_lock()) {
      if (detaching_.load() || shut_down_.load()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Read under the lock: an on-demand walk taken meanwhile answered the policy too.
    const SnapshotTrigger trigger = recorder_->follow_up_wanted();
    if (trigger == SnapshotTrigger::None) return;
    reply = take_event_snapshot(trigger);
  }
  // Taken or given up: the next GC the policy picks may ask again (within its budget).
  recorder_->follow_up_done();
  if (reply.rfind(kReplyOk, 0) != 0) {
    log_once(told_follow_up_, "a policy heap walk was not taken (" + reply +
                                  "); the recording goes on, later walks are tried as the policy picks them");
  }
}

void ShimSession::say_event_counts() const {
  const GcEventStats stats = event_stream_->stats();
  log_line("diagnostics: events source: " + std::to_string(stats.gcs) + " GCs (" +
           std::to_string(stats.background_gcs) + " background, " + std::to_string(stats.foreground_gcs) +
           " foreground), " + std::to_string(stats.objects) +
           " walked objects, " + std::to_string(stats.stray) + " batches outside a GC, " +
           std::to_string(stats.unmatched_edges) + " unmatched walk items, " + std::to_string(stats.unreadable) +
           " unreadable payloads");
}

}  // namespace gcsnap::shim
