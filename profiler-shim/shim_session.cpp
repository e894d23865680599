#include "shim_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "memory_probe.hpp"
#include "process_role.hpp"
#include "record_report.hpp"
#include "shim_log.hpp"
#include "shim_os.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;

std::atomic<ShimSession*> g_current{nullptr};

void shutdown_at_exit() noexcept {
  // Shutdown is not called when the app leaves through exit() paths the runtime skips;
  // finishing here keeps the index (the file is readable without it anyway). Safe after a
  // detach too: the library is never unmapped (-z nodelete) and on_shutdown is idempotent.
  if (ShimSession* session = ShimSession::current()) session->on_shutdown();
}

}  // namespace

uint64_t now_ns() noexcept {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

std::string hresult_text(HRESULT hr) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", static_cast<unsigned>(hr));
  return text;
}

ShimSession* ShimSession::current() noexcept { return g_current.load(); }

ShimSession& ShimSession::idle() {
  static ShimSession* session = new ShimSession();  // never set up, so never recording
  return *session;
}

void ShimSession::make_current() {
  g_current.store(this);
  static std::once_flag registered;
  std::call_once(registered, [] { std::atexit(shutdown_at_exit); });
}

void ShimSession::stop_being_current() noexcept {
  ShimSession* self = this;
  g_current.compare_exchange_strong(self, nullptr);
}

void report_failure(const char* where, const char* what) noexcept {
  if (ShimSession* session = ShimSession::current()) {
    session->turn_off(where, what);
  } else {
    char line[512];
    std::snprintf(line, sizeof(line), "%s failed: %s", where, what);
    log_line(line);
  }
}

void ShimSession::turn_off(const char* where, const char* why) noexcept {
  off_.store(true);
  if (ready_.load(std::memory_order_acquire)) recorder_->stop();
  char line[512];
  std::snprintf(line, sizeof(line),
                "recording stopped (%s: %s); the app runs on, the file keeps every GC completed before",
                where, why);
  log_once(told_off_, line);
}

HRESULT ShimSession::cancel(const std::string& why) {
  log_line("not recording: " + why);
  return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
}

bool ShimSession::query_info(IUnknown* info_unknown) {
  static constexpr const IID* kInfoIids[] = {
      &IID_ICorProfilerInfo14, &IID_ICorProfilerInfo13, &IID_ICorProfilerInfo12, &IID_ICorProfilerInfo11,
      &IID_ICorProfilerInfo10, &IID_ICorProfilerInfo9,  &IID_ICorProfilerInfo8,  &IID_ICorProfilerInfo7,
      &IID_ICorProfilerInfo6,  &IID_ICorProfilerInfo5,  &IID_ICorProfilerInfo4};
  if (!info_unknown) return false;
  for (size_t i = 0; i < std::size(kInfoIids); ++i) {
    void* out = nullptr;
    if (info_unknown->QueryInterface(*kInfoIids[i], &out) == S_OK && out) {
      // Single inheritance: an InfoN pointer is also a valid pointer to every lower version.
      info_ = static_cast<ICorProfilerInfo4*>(out);
      info_version_ = 14 - static_cast<int>(i);
      if (info_version_ >= 14) info14_ = static_cast<ICorProfilerInfo14*>(out);
      return true;
    }
  }
  return false;
}

bool ShimSession::open_output() {
  // O_EXCL: child .NET processes inherit the environment; one file never gets two writers.
  std::string why;
  os::FileHandle file = os::create_new_file(settings_.output, output_existed_, why);
  if (file == os::kNoFile) {
    if (output_existed_ && !settings_.record_dir.empty()) return false;  // `gcsnap record` says it, once, at the end
    if (output_existed_) {
      log_line("not recording process " + std::to_string(os::current_pid()) + ": " + settings_.output +
               " already exists (another process is recording into it?)");
    } else {
      log_line("not recording: cannot create " + settings_.output + ": " + why);
    }
    return false;
  }
  WriterOptions options;
  options.max_queued_bytes = settings_.max_memory_bytes / 4;
  if (settings_.source == RecordSource::Events) options.required_features = kFeatureEventsSource;
  options.max_file_bytes = settings_.max_file_bytes;
  auto writer = Writer::from_handle(file, options);
  if (!writer.is_ok()) {
    log_line("not recording: cannot write " + settings_.output + ": " + writer.error().detail);
    os::remove_file(settings_.output);
    return false;
  }
  pending_writer_ = std::move(writer).value();
  return true;
}

HRESULT ShimSession::on_initialize(IUnknown* info_unknown) {
  SettingsResult parsed = parse_settings([](const char* name) { return std::getenv(name); });
  if (!parsed.error.empty()) return cancel(parsed.error);
  settings_ = parsed.settings;
  ProcessRole role = classify_this_process();
  ProcessReport report;
  report.pid = os::current_pid();
  report.name = role.name;
  report.what = role.what;
  auto say = [&](std::string_view state) {
    report.state = state;
    write_process_report(settings_.record_dir, report);
  };
  if (role.sdk && !settings_.record_sdk) {
    // The .NET SDK's own processes (the dotnet CLI of `dotnet run`, MSBuild nodes, the
    // compiler server) are not the app: quietly not recorded, nor slowed down.
    say(kStateSdk);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  settings_.output = expand_output(settings_.output, report.pid, role.name);
  report.output = settings_.output;
  if (!query_info(info_unknown)) {
    say(kStateFailed);
    return cancel("the runtime offers no ICorProfilerInfo4 or newer");
  }
  if (!open_output()) {
    say(output_existed_ ? kStateExists : kStateFailed);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  set_up_statics();
  // MONITOR_GC set here, in Initialize, is what makes the runtime deliver the heap walk;
  // as a side effect the runtime turns background GC off for the life of the process.
  const bool events = settings_.source == RecordSource::Events;
  HRESULT hr = events ? start_event_source() : apply_event_mask();
  if (!succeeded(hr)) {
    (void)pending_writer_->close();
    os::remove_file(settings_.output);
    say(kStateFailed);
    return cancel(std::string(events ? "the events source (SetEventMask2, EventPipeStartSession)"
                                     : "SetEventMask(COR_PRF_MONITOR_GC)") + " failed with " + hresult_text(hr));
  }
  start_gc_reason_events();
  start_alloc_sites();
  if (settings_.diagnostics) say_diagnostics();
  start_recording(std::move(pending_writer_));
  if (settings_.control_socket && start_control_socket()) report.control = control_->path();
  make_current();
  say(kStateRecording);
  return S_OK;
}

void ShimSession::start_recording(std::unique_ptr<Writer> writer) {
  queries_ = new RuntimeInfoQueries(info_);
  writer_thread_ = new WriterThread(std::move(writer), [](const char* message) {
    report_failure("writing the file", message);
  });
  RecorderOptions options;
  // Must agree with ProfilerCallback::QueryInterface (GCSNAP_NO_CALLBACK5, for measurements).
  const char* no5 = std::getenv("GCSNAP_NO_CALLBACK5");
  options.dependent_handles = !(no5 && no5[0] == '1');
  options.policy = settings_.policy;
  // The events source cannot walk the GC a policy picks (a walk needs its session open before
  // its GC starts): it walks a GC it forces after it (take_follow_up_walk).
  options.walks_follow_gcs = settings_.source == RecordSource::Events;
  options.max_snapshots = settings_.max_snapshots;
  options.max_file_bytes = settings_.max_file_bytes;
  options.memory_budget_bytes = settings_.max_memory_bytes - settings_.max_memory_bytes / 4;
  options.verify_sizes = settings_.verify_sizes;
  options.capture_slots = settings_.field_names;
  // Values read the objects' memory as the slots do. Under a size cap none are recorded: the
  // cap drops only a walk's objects and slots (format-spec.md §6.17), so every walk's values
  // would stay behind until no walk fit at all.
  options.capture_values = settings_.field_names && settings_.max_file_bytes == 0;
  options.capture_string_chars = settings_.capture_strings;
  options.start_ns = now_ns();  // the default policy's budget counts from here before the first walk
  // The OOM guard reads two small files at the start of a GC that would be walked only.
  options.read_cgroup = [](uint64_t& usage, uint64_t& limit) { return read_cgroup_limit(usage, limit); };
  // Chunks for heap walks, populated off the GC thread. Written chunks are kept for the next
  // walk, up to 256 MiB or a quarter of the budget (a 5 M-object walk uses ~230 MiB): a kept
  // chunk costs the next walk no page faults and the pool thread no work while the GC thread
  // walks (5 M objects: walk CPU -19 %, docs/performance.md). Only what walks used is kept.
  // Before an on-demand walk the pool fills what walk_sizing.hpp allows from the managed heap
  // and the last walk (never over half of the walk's budget); what is over the idle cap is
  // freed as the written chunks come back.
  chunk_pool_ = new ChunkPool(std::min<size_t>(size_t{256} << 20, settings_.max_memory_bytes / 4),
                              options.memory_budget_bytes / 2);
  writer_thread_->set_chunk_pool(chunk_pool_);
  if (statics_) writer_thread_->set_statics(statics_, statics_runtime_);
  if (alloc_sampler_) writer_thread_->set_alloc_sites(alloc_sampler_);
  recorder_ = new Recorder(options, *queries_, *writer_thread_, chunk_pool_);
  if (settings_.walk_times) walk_timer_ = std::make_unique<WalkTimer>();
  if (settings_.heap_growth_bytes > 0 && settings_.mode != AttachMode::Snapshot) {
    growth_walker_ = new HeapGrowthWalker(settings_.heap_growth_bytes, settings_.max_snapshots,
                                          [this] { return take_growth_snapshot(); });
  }
  if (options.walks_follow_gcs && settings_.policy != SnapshotPolicy::None && settings_.mode != AttachMode::Snapshot)
    follow_up_walker_ = new FollowUpWalker([this] { take_follow_up_walk(); });
  raw_bounds_.resize(1024);
  ready_.store(true, std::memory_order_release);  // GC callbacks may use all of the above now
}

void ShimSession::set_up_statics() {
  if (!settings_.field_names) return;
  statics_runtime_ = new RuntimeStatics(info_);
  statics_ = new StaticSlotTable();
}

DWORD ShimSession::event_mask() const noexcept {
  // Module loads only tell the statics table which modules to scan (on the writer thread).
  return COR_PRF_MONITOR_GC | (statics_ ? COR_PRF_MONITOR_MODULE_LOADS : 0);
}

int ShimSession::runtime_major() const noexcept {
  USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
  int32_t type = 0;
  ULONG length = 0;
  if (!succeeded(info_->GetRuntimeInformation(&instance, &type, &major, &minor, &build, &qfe, 0, &length, nullptr))) {
    return 0;
  }
  return major;
}

HRESULT ShimSession::apply_event_mask() noexcept {
  // GCSNAP_EXPERIMENT_LIGHT_MASK=1, for measurements only (bench/runtimes.sh rows light*): no
  // COR_PRF_MONITOR_GC, only BASIC_GC | MONITOR_GC_MOVED_OBJECTS; nothing is walked.
  const char* light = std::getenv("GCSNAP_EXPERIMENT_LIGHT_MASK");
  if (light && light[0] == '1' && info_version_ >= 5) {
    auto* info5 = static_cast<ICorProfilerInfo5*>(info_);
    DWORD low = statics_ ? COR_PRF_MONITOR_MODULE_LOADS : 0;
    DWORD high = COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS;
    HRESULT hr = info5->SetEventMask2(low, high);
    if (succeeded(hr)) mask_low_ = low, mask_high_ = high;
    return hr;
  }
  // Runtimes before 11 do not know the bit; one that refuses it still gets the plain mask
  // (11.0.0 refuses it to an attached profiler: CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER).
  if (info_version_ >= 5 && runtime_major() >= 11) {
    auto* info5 = static_cast<ICorProfilerInfo5*>(info_);  // the object is an ICorProfilerInfoN, N >= 5
    if (succeeded(info5->SetEventMask2(event_mask(), COR_PRF_HIGH_MONITOR_GC_SKIP_ALLOCATED_BY_CLASS_STATISTIC))) {
      mask_low_ = event_mask();
      mask_high_ = COR_PRF_HIGH_MONITOR_GC_SKIP_ALLOCATED_BY_CLASS_STATISTIC;
      return S_OK;
    }
  }
  HRESULT hr = info_->SetEventMask(event_mask());
  if (succeeded(hr)) mask_low_ = event_mask(), mask_high_ = 0;
  return hr;
}

void ShimSession::say_diagnostics() const {
  USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
  int32_t type = 0;
  ULONG length = 0;
  (void)info_->GetRuntimeInformation(&instance, &type, &major, &minor, &build, &qfe, 0, &length, nullptr);
  char line[200];
  std::snprintf(line, sizeof(line),
                "diagnostics: runtime %u.%u.%u, ICorProfilerInfo%d, event mask 0x%x, high event mask 0x%x, "
                "GCTriggered session %s",
                unsigned{major}, unsigned{minor}, unsigned{build}, info_version_, unsigned{mask_low_},
                unsigned{mask_high_}, reason_events_ ? "on" : "off");
  log_line(line);
}

void ShimSession::on_module_loaded(uint64_t module, HRESULT status) noexcept {
  if (!statics_ || !succeeded(status)) return;
  try {
    statics_->add_module(module);
  } catch (...) {
    // Out of memory for one id: that module's statics go unnamed, nothing else changes.
  }
}

void ShimSession::on_module_unloading(uint64_t module) noexcept {
  if (!statics_) return;
  try {
    statics_->remove_module(module);
  } catch (...) {
  }
}

void ShimSession::on_shutdown() noexcept {
  if (shut_down_.exchange(true)) return;
  if (growth_walker_) growth_walker_->stop();
  if (follow_up_walker_) follow_up_walker_->stop();
  if (control_) control_->stop(2000);
  if (!ready_.load(std::memory_order_acquire)) return;  // attached, no output yet: nothing to finish
  recorder_->stop();
  writer_thread_->finish();
  if (settings_.diagnostics) {
    log_line("diagnostics: " + std::to_string(allocated_by_class_calls_.load()) + " ObjectsAllocatedByClass callbacks");
    if (event_stream_) say_event_counts();
    if (alloc_sampler_) say_alloc_counts();
  }
  if (settings_.verify_sizes && recorder_) {
    RecorderStats stats = recorder_->stats();
    log_line("size check: " + std::to_string(stats.size_checks) + " predicted sizes checked, " +
             std::to_string(stats.size_mismatches) + " contradicted by the runtime");
  }
}

}  // namespace gcsnap::shim
