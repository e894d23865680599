// The attached session (docs/shim.md "Attach"): InitializeForAttach sets it up on the
// runtime's diagnostics thread and returns at once; the CLI then drives it over the control
// socket (output, snapshot, detach), and a watchdog detaches it if the CLI dies or its deadline
// passes, so a process is never left recording by a gcsnap that went away.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "gcsnap_shim/shim_protocol.hpp"
#include "gcsnap_thread_name.hpp"
#include "shim_log.hpp"
#include "shim_os.hpp"
#include "shim_session.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;

std::string hex(HRESULT hr) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", static_cast<unsigned>(hr));
  return text;
}

std::string error_reply(const std::string& why) { return std::string(kReplyError) + " " + why; }

}  // namespace

HRESULT ShimSession::on_initialize_for_attach(IUnknown* info_unknown, const void* client_data, uint32_t size) {
  std::string_view data(static_cast<const char*>(client_data), client_data ? size : 0u);
  SettingsResult parsed = parse_attach_settings(data);
  if (!parsed.error.empty()) {
    log_line("not attaching: " + parsed.error);
    return static_cast<HRESULT>(kAttachErrorClientData);
  }
  settings_ = parsed.settings;
  // The measuring aids come from the app's own environment: they are not the CLI's to set.
  if (const char* times = std::getenv(kEnvWalkTimes); times && std::string_view(times) == "1") {
    settings_.walk_times = true;
  }
  // The runtime's walk alone by attach, the peer of the first snapshot by attach (bench/pause.sh).
  if (const char* only = std::getenv(kEnvWalkOnly); only && std::string_view(only) == "1") settings_.walk_only = true;
  if (!query_info(info_unknown)) {
    log_line("not attaching: the runtime offers no ICorProfilerInfo4 or newer");
    return static_cast<HRESULT>(kAttachErrorNoInfo);
  }
  // Before the event mask, so that a failure here leaves the process as it was.
  if (!start_control_socket()) return static_cast<HRESULT>(kAttachErrorControlSocket);
  // Only here, on the runtime's attach thread, may MONITOR_GC be set while background GC is
  // on: the runtime then turns background GC off itself (until the detach) after waiting for
  // one in progress, within the timeout of the attach request.
  set_up_statics();
  const bool events = settings_.source == RecordSource::Events;
  HRESULT hr = events ? start_event_source() : apply_event_mask();
  if (!succeeded(hr)) {
    control_->stop(2000);
    stop_event_sessions();
    log_line(std::string("not attaching: ") + (events ? "the events source" : "SetEventMask(COR_PRF_MONITOR_GC)") +
             " failed with " + hex(hr));
    return hr;
  }
  if (settings_.owner_pid > 0 || settings_.deadline_s > 0) watchdog_ = std::thread([this] { watch(); });
  make_current();
  return S_OK;
}

void ShimSession::on_attach_complete() noexcept {
  // GC: nothing to catch up (the CLI asks for the forced GC once the attach request returns,
  // and GC callbacks that begin mid-GC are ignored until a GC starts). Statics: the modules
  // loaded before the attach had no load callback; this is where the runtime's attach
  // protocol wants catch-up enumeration (callbacks are on, so none is missed in between).
  if (!statics_) return;
  std::vector<uint64_t> modules;
  HRESULT hr = E_FAIL;
  try {
    hr = statics_runtime_->enumerate_modules(modules);
    if (succeeded(hr))
      for (uint64_t module : modules) statics_->add_module(module);
  } catch (...) {
    hr = E_OUTOFMEMORY;
  }
  if (!succeeded(hr))
    log_line("static fields loaded before the attach are not named (EnumModules failed with " + hex(hr) + ")");
}

std::string ShimSession::accept_output() {
  os::FileHandle file = control_->take_passed_file();
  if (file == os::kNoFile) return error_reply("no file came with the request");
  if (ready_.load() || detaching_.load()) {
    os::close_file(file);
    return error_reply("the output is already set");
  }
  WriterOptions options;
  options.max_queued_bytes = settings_.max_memory_bytes / 4;
  if (settings_.source == RecordSource::Events) options.required_features = kFeatureEventsSource;
  options.max_file_bytes = settings_.max_file_bytes;
  auto writer = Writer::from_handle(file, options);
  if (!writer.is_ok()) return error_reply(std::string("cannot write the output: ") + writer.error().detail);
  start_recording(std::move(writer).value());
  return std::string(kReplyOk);
}

std::string ShimSession::detach(bool from_control_thread) noexcept {
  if (detaching_.exchange(true)) return error_reply("gcsnap is already detaching");
  bool was_recording = ready_.load(std::memory_order_acquire);
  // No GC after this point is recorded; an unfinished one is dropped.
  if (was_recording) recorder_->stop();
  {
    std::lock_guard<std::mutex> lock(detach_mutex_);
    detach_stop_watch_ = true;
  }
  detach_cv_.notify_all();
  if (watchdog_.joinable()) {
    if (watchdog_.get_id() == std::this_thread::get_id()) watchdog_.detach();
    else watchdog_.join();
  }
  // From the control thread this only asks; its thread ends after this reply.
  if (control_) control_->stop(from_control_thread ? 0 : 2000);
  bool written = !was_recording || writer_thread_->finish();
  if (chunk_pool_) chunk_pool_->stop();
  if (growth_walker_) growth_walker_->stop();
  if (follow_up_walker_) follow_up_walker_->stop();
  // Every thread of ours is done but this one, as RequestProfilerDetach wants; this one makes
  // no runtime call afterwards, and the code it runs stays mapped (-z nodelete).
  // Events keep coming from a live session until the detach completes: stop it first.
  stop_event_sessions();
  HRESULT hr = info_->RequestProfilerDetach(100);
  if (!succeeded(hr)) {
    // Still loaded: at least stop paying a root scan and heap walk start at every GC.
    (void)info_->SetEventMask(0);
    log_line("could not detach (RequestProfilerDetach failed with " + hex(hr) +
             "); recording is off, the profiler stays loaded");
    return error_reply("RequestProfilerDetach failed with " + hex(hr));
  }
  std::unique_lock<std::mutex> lock(detach_mutex_);
  bool done = detach_cv_.wait_for(lock, std::chrono::milliseconds(kDetachWaitMs), [this] { return detach_succeeded_; });
  std::string reply = std::string(kReplyOk) + (done ? " detached" : " detaching");
  if (!written) reply += " (the file could not be finished)";
  return reply;
}

void ShimSession::on_detach_succeeded() noexcept {
  // The runtime has checked that no thread is inside a callback and none will enter one, and
  // our own threads are done: the heavy parts can go. The session object itself stays.
  ready_.store(false, std::memory_order_release);
  stop_being_current();
  delete recorder_;
  recorder_ = nullptr;
  delete writer_thread_;
  writer_thread_ = nullptr;
  delete queries_;
  queries_ = nullptr;
  delete chunk_pool_;  // after the recorder and the writer thread, which use it
  chunk_pool_ = nullptr;
  {
    std::lock_guard<std::mutex> lock(detach_mutex_);
    detach_succeeded_ = true;
  }
  detach_cv_.notify_all();
}

void ShimSession::watch() noexcept {
  platform::set_thread_name("gcsnap-watch");
  auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(detach_mutex_);
  for (;;) {
    if (detach_cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return detach_stop_watch_; })) return;
    bool owner_gone = settings_.owner_pid > 0 && !os::process_exists(settings_.owner_pid);
    auto elapsed = std::chrono::steady_clock::now() - start;
    bool late = settings_.deadline_s > 0 && elapsed >= std::chrono::seconds(settings_.deadline_s);
    if (!owner_gone && !late) continue;
    lock.unlock();
    std::lock_guard<std::mutex> busy(request_mutex_);  // let a snapshot in progress finish
    log_line(owner_gone ? "the gcsnap command that attached (pid " + std::to_string(settings_.owner_pid) +
                              ") is gone: finishing the file and detaching"
                        : std::string("the attach deadline passed: finishing the file and detaching"));
    (void)detach(false);
    return;
  }
}

}  // namespace gcsnap::shim
