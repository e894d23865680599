#include "profiler_callback.hpp"

#include <cstdlib>

#include "shim_guard.hpp"
#include "shim_session.hpp"

namespace gcsnap::shim {
namespace {

// ObjectID, UINT_PTR and SIZE_T are pointer-sized: 64 bits on every system the shim builds for.
static_assert(sizeof(ObjectID) == sizeof(uint64_t) && sizeof(COR_PRF_GC_ROOT_KIND) == sizeof(uint32_t));

std::span<const uint64_t> ids(const UINT_PTR* values, ULONG count) {
  return {reinterpret_cast<const uint64_t*>(values), values ? count : 0u};
}
std::span<const uint32_t> words(const int32_t* values, ULONG count) {
  return {reinterpret_cast<const uint32_t*>(values), values ? count : 0u};
}

// GCSNAP_NO_CALLBACK5=1 answers QI up to Callback4 only: no dependent-handle scan and no
// dependent-handle section. For measuring what the scan costs (bench/cwt_cost.sh).
bool callback5_wanted() noexcept {
  static const bool wanted = [] {
    const char* v = std::getenv("GCSNAP_NO_CALLBACK5");
    return !(v && v[0] == '1');
  }();
  return wanted;
}

}  // namespace

HRESULT ProfilerCallback::QueryInterface(REFIID riid, void** ppv) {
  if (!ppv) return E_POINTER;
  if (riid == IID_IUnknown || riid == IID_ICorProfilerCallback || riid == IID_ICorProfilerCallback2 ||
      riid == IID_ICorProfilerCallback3 || riid == IID_ICorProfilerCallback4 ||
      ((riid == IID_ICorProfilerCallback5 || riid == IID_ICorProfilerCallback6 || riid == IID_ICorProfilerCallback7 ||
        riid == IID_ICorProfilerCallback8 || riid == IID_ICorProfilerCallback9 || riid == IID_ICorProfilerCallback10) &&
       callback5_wanted())) {
    *ppv = static_cast<ICorProfilerCallback10*>(this);
    AddRef();
    return S_OK;
  }
  *ppv = nullptr;
  return E_NOINTERFACE;
}

ULONG ProfilerCallback::Release() {
  // Never deleted, so a late callback can never touch freed memory: the runtime holds it
  // until the process ends or a detach (a few dozen bytes left per attach).
  ULONG left = --refs_;
  return left;
}

HRESULT ProfilerCallback::Initialize(IUnknown* info) {
  return guarded("Initialize", CORPROF_E_PROFILER_CANCEL_ACTIVATION, [&] {
    session_ = new ShimSession();
    return session_->on_initialize(info);
  });
}

HRESULT ProfilerCallback::InitializeForAttach(IUnknown* info, void* client_data, UINT client_data_size) {
  return guarded("InitializeForAttach", CORPROF_E_PROFILER_CANCEL_ACTIVATION, [&] {
    session_ = new ShimSession();
    return session_->on_initialize_for_attach(info, client_data, client_data_size);
  });
}

HRESULT ProfilerCallback::ProfilerAttachComplete() {
  return guarded("ProfilerAttachComplete", S_OK, [&] {
    session().on_attach_complete();
    return S_OK;
  });
}

HRESULT ProfilerCallback::ProfilerDetachSucceeded() {
  return guarded("ProfilerDetachSucceeded", S_OK, [&] {
    session().on_detach_succeeded();
    return S_OK;
  });
}

HRESULT ProfilerCallback::Shutdown() {
  return guarded("Shutdown", S_OK, [&] {
    session().on_shutdown();
    return S_OK;
  });
}

HRESULT ProfilerCallback::ModuleLoadFinished(ModuleID module, HRESULT status) {
  return guarded("ModuleLoadFinished", S_OK, [&] {
    session().on_module_loaded(module, status);
    return S_OK;
  });
}

HRESULT ProfilerCallback::ModuleUnloadStarted(ModuleID module) {
  return guarded("ModuleUnloadStarted", S_OK, [&] {
    session().on_module_unloading(module);
    return S_OK;
  });
}

HRESULT ProfilerCallback::GarbageCollectionStarted(int generations, BOOL collected[], COR_PRF_GC_REASON reason) {
  return guarded("GarbageCollectionStarted", S_OK, [&] {
    if (session().is_recording() && !session().from_events()) session().on_gc_started(generations, collected, reason);
    return S_OK;
  });
}

HRESULT ProfilerCallback::EventPipeEventDelivered(EVENTPIPE_PROVIDER provider, DWORD event_id, DWORD version,
                                                  ULONG, LPCBYTE, ULONG data_size, LPCBYTE data, const GUID*,
                                                  const GUID*, ThreadID, ULONG, UINT_PTR[]) {
  return guarded("EventPipeEventDelivered", S_OK, [&] {
    session().on_pipe_event(provider, event_id, version, {data, data ? data_size : 0u});
    return S_OK;
  });
}

HRESULT ProfilerCallback::SurvivingReferences2(ULONG ranges, ObjectID starts[], SIZE_T lengths[]) {
  // S_OK also tells the runtime to skip the v1 SurvivingReferences for this batch.
  return guarded("SurvivingReferences2", S_OK, [&] {
    if (session().is_recording()) session().on_surviving_references(ids(starts, ranges), ids(lengths, ranges));
    return S_OK;
  });
}

HRESULT ProfilerCallback::MovedReferences2(ULONG ranges, ObjectID old_starts[], ObjectID new_starts[],
                                           SIZE_T lengths[]) {
  return guarded("MovedReferences2", S_OK, [&] {
    if (session().is_recording()) {
      session().on_moved_references(ids(old_starts, ranges), ids(new_starts, ranges), ids(lengths, ranges));
    }
    return S_OK;
  });
}

HRESULT ProfilerCallback::RootReferences2(ULONG count, ObjectID refs[], COR_PRF_GC_ROOT_KIND kinds[],
                                          COR_PRF_GC_ROOT_FLAGS flags[], UINT_PTR root_ids[]) {
  return guarded("RootReferences2", S_OK, [&] {
    if (session().is_recording()) {
      session().on_root_references(ids(refs, count), words(kinds, count), words(flags, count), ids(root_ids, count));
    }
    return S_OK;
  });
}

HRESULT ProfilerCallback::ConditionalWeakTableElementReferences(ULONG count, ObjectID keys[], ObjectID values[],
                                                                GCHandleID*) {
  return guarded("ConditionalWeakTableElementReferences", S_OK, [&] {
    if (session().is_recording()) session().on_dependent_handles(ids(keys, count), ids(values, count));
    return S_OK;
  });
}

HRESULT ProfilerCallback::ObjectReferences(ObjectID object, ClassID class_id, ULONG count, ObjectID refs[]) {
  // E_FAIL stops the runtime's heap walk: that is how a GC without a snapshot stays cheap.
  return guarded("ObjectReferences", E_FAIL, [&] {
    if (!session().is_recording()) return E_FAIL;
    return session().on_object_references(object, class_id, ids(refs, count)) ? S_OK : E_FAIL;
  });
}

HRESULT ProfilerCallback::ObjectsAllocatedByClass(ULONG, ClassID[], ULONG[]) {
  session().on_objects_allocated_by_class();
  return S_OK;
}

HRESULT ProfilerCallback::GarbageCollectionFinished() {
  return guarded("GarbageCollectionFinished", S_OK, [&] {
    if (session().is_recording() && !session().from_events()) session().on_gc_finished();
    return S_OK;
  });
}

}  // namespace gcsnap::shim
