// Allocation sites of a ShimSession (docs/shim.md "Allocation sites"): the EventPipe session
// that samples allocations (AllocationSampled on .NET 10+, GCAllocationTick on 8 and 9), the
// stack of each sample through DoStackSnapshot on the allocating thread, and the names of its
// functions on the writer thread (allocation-sampling-facts.md).
#include <string>

#include "alloc_sampler.hpp"
#include "runtime_queries.hpp"
#include "shim_log.hpp"
#include "shim_session.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;

constexpr const WCHAR kRuntimeProvider[] = u"Microsoft-Windows-DotNETRuntime";
constexpr uint64_t kAllocationSamplingKeyword = 0x80000000000;  ///< AllocationSampled (303), .NET 10+
constexpr uint64_t kGcKeyword = 0x1;                           ///< GCAllocationTick (10) at level 5
constexpr uint32_t kLevelInformational = 4;
constexpr uint32_t kLevelVerbose = 5;

struct StackWalk {
  std::span<uint64_t> frames;
  std::span<uint8_t> native;
  size_t count = 0;
  bool truncated = false;
};

HRESULT on_frame(FunctionID function, UINT_PTR ip, COR_PRF_FRAME_INFO, ULONG32, BYTE[], void* data) {
  auto* walk = static_cast<StackWalk*>(data);
  if (walk->count == walk->frames.size()) {
    walk->truncated = true;
    return S_FALSE;  // stops the walk: the frames so far are kept
  }
  walk->frames[walk->count] = function != 0 ? function : ip;
  walk->native[walk->count] = function != 0 ? 0 : 1;
  ++walk->count;
  return S_OK;
}

}  // namespace

/// AllocRuntime over the profiling API. Stacks on the allocating thread; names on the writer
/// thread, through a RuntimeInfoQueries of its own (its caches are not shared with the GC's).
class ProfilerAllocRuntime final : public AllocRuntime {
 public:
  explicit ProfilerAllocRuntime(ICorProfilerInfo4* info) : info_(info), names_(info) {}
  uint64_t current_thread() noexcept override {
    ThreadID thread = 0;
    return succeeded(info_->GetCurrentThreadID(&thread)) ? thread : 0;
  }
  size_t stack(std::span<uint64_t> frames, std::span<uint8_t> native, bool& truncated) noexcept override {
    StackWalk walk{frames, native, 0, false};
    const HRESULT hr = info_->DoStackSnapshot(0, &on_frame, 0, &walk, nullptr, 0);
    // A failed walk (CORPROF_E_STACKSNAPSHOT_UNSAFE, about 1 in 20,000) gives no stack;
    // one we stopped ourselves keeps what it has.
    if (!succeeded(hr) && !walk.truncated) return 0;
    truncated = walk.truncated;
    return walk.count;
  }
  bool name_function(uint64_t function_id, StackFunction& out) override {
    if (!names_.function_parts(function_id, out.module, out.type, out.method)) return false;
    for (std::string* s : {&out.module, &out.type, &out.method})
      if (s->size() > kMaxNameBytes) s->resize(kMaxNameBytes);
    return true;
  }

 private:
  ICorProfilerInfo4* info_;
  RuntimeInfoQueries names_;
};

void ShimSession::start_alloc_sites() noexcept {
  // Not for one snapshot by attach: it would sample nothing before its one walk.
  if (!settings_.alloc_sites || settings_.mode == AttachMode::Snapshot || info_version_ < 12) return;
  const int major = runtime_major();
  auto* info5 = static_cast<ICorProfilerInfo5*>(info_);  // the object is an ICorProfilerInfoN, N >= 12
  const DWORD low = mask_low_ | COR_PRF_ENABLE_STACK_SNAPSHOT;
  const DWORD high = mask_high_ | COR_PRF_HIGH_MONITOR_EVENT_PIPE;
  HRESULT hr = info5->SetEventMask2(low, high);
  if (!succeeded(hr)) {
    log_line("allocation sites off: SetEventMask2 failed with " + hresult_text(hr));
    return;
  }
  mask_low_ = low, mask_high_ = high;
  try {
    alloc_runtime_ = new ProfilerAllocRuntime(info_);
    alloc_sampler_ = new AllocSampler(*alloc_runtime_, settings_.alloc_cap, now_ns);
  } catch (...) {
    log_line("allocation sites off: out of memory");
    return;
  }
  // The events source on 8 and 9 raised its own session to level 5 (shim_events.cpp): a second
  // session with the GC keyword would deliver every GC event twice.
  // GetRuntimeInformation answers nothing in InitializeForAttach (major 0): then the session
  // asks for AllocationSampled (a runtime before 10 sends nothing for its keyword) and, with the
  // profiler source, for the ticks too; the sampler drops ticks once a sampled event came.
  if (from_events() && major != 0 && major < 10) {
    if (settings_.diagnostics) log_line("diagnostics: allocation sites: ticks from the events session (runtime " + std::to_string(major) + ")");
    return;
  }
  const bool sampled = major >= 10 || major == 0;
  const bool ticks = major < 10 && !from_events();
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG config{
      kRuntimeProvider, (sampled ? kAllocationSamplingKeyword : 0) | (ticks ? kGcKeyword : 0),
      ticks ? kLevelVerbose : kLevelInformational, nullptr};
  EVENTPIPE_SESSION session = 0;
  hr = static_cast<ICorProfilerInfo12*>(info_)->EventPipeStartSession(1, &config, 0, &session);
  if (!succeeded(hr)) {
    alloc_sampler_ = nullptr;  // never freed: a racing event may still hold it
    log_line("allocation sites off: EventPipeStartSession failed with " + hresult_text(hr));
    return;
  }
  alloc_session_.store(session);
  if (settings_.diagnostics)
    log_line(std::string("diagnostics: allocation sites: session on (") + (sampled ? "AllocationSampled" : "") +
             (sampled && ticks ? " and " : "") + (ticks ? "allocation ticks" : "") + ")");
}

bool ShimSession::on_alloc_event(uint32_t id, uint32_t version, std::span<const uint8_t> payload) noexcept {
  if (id != alloc_event::kSampled && id != alloc_event::kTick) return false;
  AllocSampler* sampler = alloc_sampler_;
  if (!sampler || !is_recording()) return true;
  sampler->on_event(id, version, payload);
  if (sampler->off() && !alloc_told_off_.exchange(true))
    log_line(std::string("allocation sites off: ") + sampler->problem() + "; recording goes on");
  if (sampler->stacks_full() && !alloc_told_full_.exchange(true))
    log_line("allocation sites: the stack table reached its " +
             std::to_string(sampler->stack_budget() >> 20) +
             " MiB budget; samples with a new stack are kept with the stack <truncated>");
  return true;
}

void ShimSession::stop_alloc_session() noexcept {
  if (uint64_t session = alloc_session_.exchange(0))
    (void)static_cast<ICorProfilerInfo12*>(info_)->EventPipeStopSession(session);
}

void ShimSession::say_alloc_counts() const {
  const AllocSamplerStats s = alloc_sampler_->stats();
  log_line("diagnostics: allocation sites: " + std::to_string(s.events) + " sampling events, " +
           std::to_string(s.kept) + " samples kept, " + std::to_string(s.thinned) + " thinned by the rate cap, " +
           std::to_string(s.stackless) + " without a stack, " + std::to_string(s.stacks) + " stacks (" +
           std::to_string(s.stack_bytes >> 10) + " KiB), " + std::to_string(s.over_budget) +
           " over the stack budget");
}

}  // namespace gcsnap::shim
