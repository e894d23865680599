// ShimSession: the control socket's requests (an on-demand snapshot, and in an attached
// session the output and detach requests) and the snapshot the growth walker asks for.
#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "gcsnap_shim/shim_protocol.hpp"
#include "shim_log.hpp"
#include "shim_os.hpp"
#include "shim_session.hpp"

namespace gcsnap::shim {

using namespace com;

bool ShimSession::start_control_socket() {
  std::string error;
  auto server = ControlServer::start(control_socket_path(os::current_pid()),
                                     [this](const std::string& request) { return handle_request(request); }, error);
  if (!server) {
    log_line("on-demand snapshots are unavailable: " + error);
    return false;
  }
  control_ = server.release();
  return true;
}

std::string ShimSession::handle_request(const std::string& request) {
  auto is = [&](std::string_view line) { return request == line.substr(0, line.size() - 1); };
  // One request at a time, and never alongside the watchdog's detach.
  std::lock_guard<std::mutex> busy(request_mutex_);
  if (is(kRequestSnapshot)) return take_snapshot();
  if (settings_.mode != AttachMode::Startup && is(kRequestOutput)) return accept_output();
  if (settings_.mode != AttachMode::Startup && is(kRequestDetach)) return detach(true);
  return std::string(kReplyError) + " unknown request";
}

std::string ShimSession::take_snapshot() {
  std::string error = std::string(kReplyError) + " ";
  if (detaching_.load()) return error + "gcsnap is detaching";
  if (!is_recording() || shut_down_.load()) return error + "recording is off";
  if (event_stream_) return take_event_snapshot();
  uint64_t before = recorder_->last_on_demand_gc();
  const uint64_t refused_before = recorder_->last_refused_gc();
  prepare_chunks_for_walk();
  recorder_->request_on_demand();
  // The light-mask experiment: COR_PRF_MONITOR_GC on just for the forced GC (pitfall 4: the
  // runtime refuses it while concurrent GC is on), the light mask again after.
  const bool light = mask_high_ == (COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS);
  if (light) {
    auto* info5 = static_cast<ICorProfilerInfo5*>(info_);
    HRESULT on = info5->SetEventMask2(mask_low_ | COR_PRF_MONITOR_GC, mask_high_);
    if (!succeeded(on)) return error + "SetEventMask2(MONITOR_GC) for the walk failed with " + hresult_text(on);
  }
  // Legal here: this is a native thread of our own, not inside a callback (the profiling API
  // docs, ICorProfilerInfo::ForceGC: not from a thread that runs managed code).
  HRESULT hr = info_->ForceGC();
  if (light) {
    HRESULT off = static_cast<ICorProfilerInfo5*>(info_)->SetEventMask2(mask_low_, mask_high_);
    if (!succeeded(off)) return error + "SetEventMask2 back to the light mask failed with " + hresult_text(off);
  }
  if (!succeeded(hr)) return error + "ForceGC failed with " + hresult_text(hr);
  uint64_t after = recorder_->last_on_demand_gc();
  if (after == before && recorder_->last_refused_gc() > refused_before) {
    return error + "the walk was skipped (memory cgroup headroom or memory cap; gcsnap info says which)";
  }
  if (after == before) return error + "the forced GC was not recorded";
  return std::string(kReplyOk) + " " + std::to_string(after);
}

std::string ShimSession::take_growth_snapshot() {
  // try_lock: detach holds request_mutex_ while it stops this thread.
  std::unique_lock<std::mutex> busy(request_mutex_, std::defer_lock);
  while (!busy.try_lock()) {
    if (detaching_.load() || shut_down_.load()) return std::string(kReplyError).append(" recording is ending");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return take_snapshot();
}

}  // namespace gcsnap::shim
