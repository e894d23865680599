#pragma once
// The COM object the runtime talks to. This is the only file where the runtime's method
// names live: each callback the shim uses forwards at once, through the guard, to plainly
// named C++ on ShimSession; every other slot of ICorProfilerCallback..4 returns S_OK.
// The class answers QI for IUnknown and Callback..Callback5: Callback3 is needed to be
// loaded at startup, Callback4 for MovedReferences2/SurvivingReferences2 (SIZE_T lengths),
// Callback5 for ConditionalWeakTableElementReferences (dependent handles), Callback10 for
// EventPipeEventDelivered (the shim's own EventPipe session, .NET 8 only).

#include <atomic>

#include "cor_profiler_abi.hpp"
#include "shim_session.hpp"

namespace gcsnap::shim {

using namespace com;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"

class ProfilerCallback final : public ICorProfilerCallback10 {
 public:
  ProfilerCallback() = default;
  ~ProfilerCallback() = default;

  HRESULT QueryInterface(REFIID riid, void** ppv) override;
  ULONG AddRef() override { return ++refs_; }
  ULONG Release() override;

  HRESULT Initialize(IUnknown* info) override;
  HRESULT Shutdown() override;
  HRESULT AppDomainCreationStarted(AppDomainID) override { return S_OK; }
  HRESULT AppDomainCreationFinished(AppDomainID, HRESULT) override { return S_OK; }
  HRESULT AppDomainShutdownStarted(AppDomainID) override { return S_OK; }
  HRESULT AppDomainShutdownFinished(AppDomainID, HRESULT) override { return S_OK; }
  HRESULT AssemblyLoadStarted(AssemblyID) override { return S_OK; }
  HRESULT AssemblyLoadFinished(AssemblyID, HRESULT) override { return S_OK; }
  HRESULT AssemblyUnloadStarted(AssemblyID) override { return S_OK; }
  HRESULT AssemblyUnloadFinished(AssemblyID, HRESULT) override { return S_OK; }
  HRESULT ModuleLoadStarted(ModuleID) override { return S_OK; }
  HRESULT ModuleLoadFinished(ModuleID module, HRESULT status) override;
  HRESULT ModuleUnloadStarted(ModuleID module) override;
  HRESULT ModuleUnloadFinished(ModuleID, HRESULT) override { return S_OK; }
  HRESULT ModuleAttachedToAssembly(ModuleID, AssemblyID) override { return S_OK; }
  HRESULT ClassLoadStarted(ClassID) override { return S_OK; }
  HRESULT ClassLoadFinished(ClassID, HRESULT) override { return S_OK; }
  HRESULT ClassUnloadStarted(ClassID) override { return S_OK; }
  HRESULT ClassUnloadFinished(ClassID, HRESULT) override { return S_OK; }
  HRESULT FunctionUnloadStarted(FunctionID) override { return S_OK; }
  HRESULT JITCompilationStarted(FunctionID, BOOL is_safe_to_block) override { return S_OK; }
  HRESULT JITCompilationFinished(FunctionID, HRESULT, BOOL is_safe_to_block) override { return S_OK; }
  HRESULT JITCachedFunctionSearchStarted(FunctionID, BOOL* use_cached) override { return S_OK; }
  HRESULT JITCachedFunctionSearchFinished(FunctionID, COR_PRF_JIT_CACHE) override { return S_OK; }
  HRESULT JITFunctionPitched(FunctionID) override { return S_OK; }
  HRESULT JITInlining(FunctionID caller, FunctionID callee, BOOL* should_inline) override { return S_OK; }
  HRESULT ThreadCreated(ThreadID) override { return S_OK; }
  HRESULT ThreadDestroyed(ThreadID) override { return S_OK; }
  HRESULT ThreadAssignedToOSThread(ThreadID, DWORD os_thread_id) override { return S_OK; }
  HRESULT RemotingClientInvocationStarted() override { return S_OK; }
  HRESULT RemotingClientSendingMessage(GUID* cookie, BOOL is_async) override { return S_OK; }
  HRESULT RemotingClientReceivingReply(GUID* cookie, BOOL is_async) override { return S_OK; }
  HRESULT RemotingClientInvocationFinished() override { return S_OK; }
  HRESULT RemotingServerReceivingMessage(GUID* cookie, BOOL is_async) override { return S_OK; }
  HRESULT RemotingServerInvocationStarted() override { return S_OK; }
  HRESULT RemotingServerInvocationReturned() override { return S_OK; }
  HRESULT RemotingServerSendingReply(GUID* cookie, BOOL is_async) override { return S_OK; }
  HRESULT UnmanagedToManagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) override { return S_OK; }
  HRESULT ManagedToUnmanagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) override { return S_OK; }
  HRESULT RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON) override { return S_OK; }
  HRESULT RuntimeSuspendFinished() override { return S_OK; }
  HRESULT RuntimeSuspendAborted() override { return S_OK; }
  HRESULT RuntimeResumeStarted() override { return S_OK; }
  HRESULT RuntimeResumeFinished() override { return S_OK; }
  HRESULT RuntimeThreadSuspended(ThreadID) override { return S_OK; }
  HRESULT RuntimeThreadResumed(ThreadID) override { return S_OK; }
  HRESULT MovedReferences(ULONG ranges, ObjectID old_starts[], ObjectID new_starts[], ULONG lengths[]) override { return S_OK; }
  HRESULT ObjectAllocated(ObjectID, ClassID) override { return S_OK; }
  /// Counted only (GCSNAP_DIAGNOSTICS): .NET 11's skip bit is seen working when none arrive.
  HRESULT ObjectsAllocatedByClass(ULONG count, ClassID class_ids[], ULONG objects[]) override;
  HRESULT ObjectReferences(ObjectID object, ClassID class_id, ULONG count, ObjectID refs[]) override;
  HRESULT RootReferences(ULONG count, ObjectID refs[]) override { return S_OK; }
  HRESULT ExceptionThrown(ObjectID) override { return S_OK; }
  HRESULT ExceptionSearchFunctionEnter(FunctionID) override { return S_OK; }
  HRESULT ExceptionSearchFunctionLeave() override { return S_OK; }
  HRESULT ExceptionSearchFilterEnter(FunctionID) override { return S_OK; }
  HRESULT ExceptionSearchFilterLeave() override { return S_OK; }
  HRESULT ExceptionSearchCatcherFound(FunctionID) override { return S_OK; }
  HRESULT ExceptionOSHandlerEnter(UINT_PTR) override { return S_OK; }
  HRESULT ExceptionOSHandlerLeave(UINT_PTR) override { return S_OK; }
  HRESULT ExceptionUnwindFunctionEnter(FunctionID) override { return S_OK; }
  HRESULT ExceptionUnwindFunctionLeave() override { return S_OK; }
  HRESULT ExceptionUnwindFinallyEnter(FunctionID) override { return S_OK; }
  HRESULT ExceptionUnwindFinallyLeave() override { return S_OK; }
  HRESULT ExceptionCatcherEnter(FunctionID, ObjectID) override { return S_OK; }
  HRESULT ExceptionCatcherLeave() override { return S_OK; }
  HRESULT COMClassicVTableCreated(ClassID, REFIID, void* vtable, ULONG slots) override { return S_OK; }
  HRESULT COMClassicVTableDestroyed(ClassID, REFIID, void* vtable) override { return S_OK; }
  HRESULT ExceptionCLRCatcherFound() override { return S_OK; }
  HRESULT ExceptionCLRCatcherExecute() override { return S_OK; }
  HRESULT ThreadNameChanged(ThreadID, ULONG chars, WCHAR name[]) override { return S_OK; }
  HRESULT GarbageCollectionStarted(int generations, BOOL collected[], COR_PRF_GC_REASON) override;
  HRESULT SurvivingReferences(ULONG ranges, ObjectID starts[], ULONG lengths[]) override { return S_OK; }
  HRESULT GarbageCollectionFinished() override;
  HRESULT FinalizeableObjectQueued(DWORD flags, ObjectID) override { return S_OK; }
  HRESULT RootReferences2(ULONG count, ObjectID refs[], COR_PRF_GC_ROOT_KIND kinds[], COR_PRF_GC_ROOT_FLAGS flags[], UINT_PTR root_ids[]) override;
  HRESULT HandleCreated(GCHandleID, ObjectID initial) override { return S_OK; }
  HRESULT HandleDestroyed(GCHandleID) override { return S_OK; }
  HRESULT InitializeForAttach(IUnknown* info, void* client_data, UINT client_data_size) override;
  HRESULT ProfilerAttachComplete() override;
  HRESULT ProfilerDetachSucceeded() override;
  HRESULT ReJITCompilationStarted(FunctionID, ReJITID, BOOL is_safe_to_block) override { return S_OK; }
  HRESULT GetReJITParameters(ModuleID, mdMethodDef, ICorProfilerFunctionControl*) override { return S_OK; }
  HRESULT ReJITCompilationFinished(FunctionID, ReJITID, HRESULT, BOOL is_safe_to_block) override { return S_OK; }
  HRESULT ReJITError(ModuleID, mdMethodDef, FunctionID, HRESULT) override { return S_OK; }
  HRESULT MovedReferences2(ULONG ranges, ObjectID old_starts[], ObjectID new_starts[], SIZE_T lengths[]) override;
  HRESULT SurvivingReferences2(ULONG ranges, ObjectID starts[], SIZE_T lengths[]) override;
  HRESULT ConditionalWeakTableElementReferences(ULONG count, ObjectID keys[], ObjectID values[],
                                                GCHandleID root_ids[]) override;
  HRESULT GetAssemblyReferences(const WCHAR*, void*) override { return S_OK; }
  HRESULT ModuleInMemorySymbolsUpdated(ModuleID) override { return S_OK; }
  HRESULT DynamicMethodJITCompilationStarted(FunctionID, BOOL, LPCBYTE, ULONG) override { return S_OK; }
  HRESULT DynamicMethodJITCompilationFinished(FunctionID, HRESULT, BOOL) override { return S_OK; }
  HRESULT DynamicMethodUnloaded(FunctionID) override { return S_OK; }
  HRESULT EventPipeEventDelivered(EVENTPIPE_PROVIDER provider, DWORD event_id, DWORD event_version,
                                  ULONG metadata_size, LPCBYTE metadata, ULONG data_size, LPCBYTE data,
                                  const GUID* activity, const GUID* related_activity, ThreadID thread,
                                  ULONG frame_count, UINT_PTR frames[]) override;
  HRESULT EventPipeProviderCreated(EVENTPIPE_PROVIDER) override { return S_OK; }

 private:
  /// This load's session (set by Initialize or InitializeForAttach), or the idle one.
  ShimSession& session() { return session_ ? *session_ : ShimSession::idle(); }

  std::atomic<ULONG> refs_{1};
  ShimSession* session_ = nullptr;
};

#pragma GCC diagnostic pop

}  // namespace gcsnap::shim
