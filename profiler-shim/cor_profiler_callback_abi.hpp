#pragma once
// ICorProfilerCallback .. ICorProfilerCallback5 with every slot (dotnet/runtime v8.0.0,
// src/coreclr/inc/corprof.idl). The shim
// answers QI up to Callback5: with COR_PRF_MONITOR_GC that turns on the runtime's
// dependent-handle scan, whose pairs (ConditionalWeakTable key -> value) the heap graph needs.
// Callback6..10 only for Callback10's EventPipe delivery (same condition as Callback5).
// Included by cor_profiler_abi.hpp; do not include directly.

namespace gcsnap::shim::com {

struct ICorProfilerCallback : IUnknown {
  virtual HRESULT Initialize(IUnknown* info) = 0;  // 3
  virtual HRESULT Shutdown() = 0;
  virtual HRESULT AppDomainCreationStarted(AppDomainID) = 0;  // 5
  virtual HRESULT AppDomainCreationFinished(AppDomainID, HRESULT) = 0;
  virtual HRESULT AppDomainShutdownStarted(AppDomainID) = 0;
  virtual HRESULT AppDomainShutdownFinished(AppDomainID, HRESULT) = 0;
  virtual HRESULT AssemblyLoadStarted(AssemblyID) = 0;  // 9
  virtual HRESULT AssemblyLoadFinished(AssemblyID, HRESULT) = 0;
  virtual HRESULT AssemblyUnloadStarted(AssemblyID) = 0;
  virtual HRESULT AssemblyUnloadFinished(AssemblyID, HRESULT) = 0;
  virtual HRESULT ModuleLoadStarted(ModuleID) = 0;  // 13
  virtual HRESULT ModuleLoadFinished(ModuleID, HRESULT) = 0;
  virtual HRESULT ModuleUnloadStarted(ModuleID) = 0;
  virtual HRESULT ModuleUnloadFinished(ModuleID, HRESULT) = 0;
  virtual HRESULT ModuleAttachedToAssembly(ModuleID, AssemblyID) = 0;  // 17
  virtual HRESULT ClassLoadStarted(ClassID) = 0;
  virtual HRESULT ClassLoadFinished(ClassID, HRESULT) = 0;
  virtual HRESULT ClassUnloadStarted(ClassID) = 0;
  virtual HRESULT ClassUnloadFinished(ClassID, HRESULT) = 0;  // 21
  virtual HRESULT FunctionUnloadStarted(FunctionID) = 0;
  virtual HRESULT JITCompilationStarted(FunctionID, BOOL is_safe_to_block) = 0;
  virtual HRESULT JITCompilationFinished(FunctionID, HRESULT, BOOL is_safe_to_block) = 0;
  virtual HRESULT JITCachedFunctionSearchStarted(FunctionID, BOOL* use_cached) = 0;  // 25
  virtual HRESULT JITCachedFunctionSearchFinished(FunctionID, COR_PRF_JIT_CACHE) = 0;
  virtual HRESULT JITFunctionPitched(FunctionID) = 0;
  virtual HRESULT JITInlining(FunctionID caller, FunctionID callee, BOOL* should_inline) = 0;
  virtual HRESULT ThreadCreated(ThreadID) = 0;  // 29
  virtual HRESULT ThreadDestroyed(ThreadID) = 0;
  virtual HRESULT ThreadAssignedToOSThread(ThreadID, DWORD os_thread_id) = 0;
  virtual HRESULT RemotingClientInvocationStarted() = 0;
  virtual HRESULT RemotingClientSendingMessage(GUID* cookie, BOOL is_async) = 0;  // 33
  virtual HRESULT RemotingClientReceivingReply(GUID* cookie, BOOL is_async) = 0;
  virtual HRESULT RemotingClientInvocationFinished() = 0;
  virtual HRESULT RemotingServerReceivingMessage(GUID* cookie, BOOL is_async) = 0;
  virtual HRESULT RemotingServerInvocationStarted() = 0;  // 37
  virtual HRESULT RemotingServerInvocationReturned() = 0;
  virtual HRESULT RemotingServerSendingReply(GUID* cookie, BOOL is_async) = 0;
  virtual HRESULT UnmanagedToManagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) = 0;
  virtual HRESULT ManagedToUnmanagedTransition(FunctionID, COR_PRF_TRANSITION_REASON) = 0;  // 41
  virtual HRESULT RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON) = 0;
  virtual HRESULT RuntimeSuspendFinished() = 0;
  virtual HRESULT RuntimeSuspendAborted() = 0;
  virtual HRESULT RuntimeResumeStarted() = 0;  // 45
  virtual HRESULT RuntimeResumeFinished() = 0;
  virtual HRESULT RuntimeThreadSuspended(ThreadID) = 0;
  virtual HRESULT RuntimeThreadResumed(ThreadID) = 0;
  virtual HRESULT MovedReferences(ULONG ranges, ObjectID old_starts[], ObjectID new_starts[],
                                  ULONG lengths[]) = 0;  // 49
  virtual HRESULT ObjectAllocated(ObjectID, ClassID) = 0;
  virtual HRESULT ObjectsAllocatedByClass(ULONG count, ClassID class_ids[], ULONG objects[]) = 0;
  virtual HRESULT ObjectReferences(ObjectID object, ClassID class_id, ULONG count, ObjectID refs[]) = 0;
  virtual HRESULT RootReferences(ULONG count, ObjectID refs[]) = 0;  // 53
  virtual HRESULT ExceptionThrown(ObjectID) = 0;
  virtual HRESULT ExceptionSearchFunctionEnter(FunctionID) = 0;
  virtual HRESULT ExceptionSearchFunctionLeave() = 0;
  virtual HRESULT ExceptionSearchFilterEnter(FunctionID) = 0;  // 57
  virtual HRESULT ExceptionSearchFilterLeave() = 0;
  virtual HRESULT ExceptionSearchCatcherFound(FunctionID) = 0;
  virtual HRESULT ExceptionOSHandlerEnter(UINT_PTR) = 0;
  virtual HRESULT ExceptionOSHandlerLeave(UINT_PTR) = 0;  // 61
  virtual HRESULT ExceptionUnwindFunctionEnter(FunctionID) = 0;
  virtual HRESULT ExceptionUnwindFunctionLeave() = 0;
  virtual HRESULT ExceptionUnwindFinallyEnter(FunctionID) = 0;
  virtual HRESULT ExceptionUnwindFinallyLeave() = 0;  // 65
  virtual HRESULT ExceptionCatcherEnter(FunctionID, ObjectID) = 0;
  virtual HRESULT ExceptionCatcherLeave() = 0;
  virtual HRESULT COMClassicVTableCreated(ClassID, REFIID, void* vtable, ULONG slots) = 0;
  virtual HRESULT COMClassicVTableDestroyed(ClassID, REFIID, void* vtable) = 0;  // 69
  virtual HRESULT ExceptionCLRCatcherFound() = 0;
  virtual HRESULT ExceptionCLRCatcherExecute() = 0;  // 71

 protected:
  ~ICorProfilerCallback() = default;
};

struct ICorProfilerCallback2 : ICorProfilerCallback {
  virtual HRESULT ThreadNameChanged(ThreadID, ULONG chars, WCHAR name[]) = 0;  // 72
  virtual HRESULT GarbageCollectionStarted(int generations, BOOL collected[], COR_PRF_GC_REASON) = 0;
  virtual HRESULT SurvivingReferences(ULONG ranges, ObjectID starts[], ULONG lengths[]) = 0;
  virtual HRESULT GarbageCollectionFinished() = 0;  // 75
  virtual HRESULT FinalizeableObjectQueued(DWORD flags, ObjectID) = 0;
  virtual HRESULT RootReferences2(ULONG count, ObjectID refs[], COR_PRF_GC_ROOT_KIND kinds[],
                                  COR_PRF_GC_ROOT_FLAGS flags[], UINT_PTR root_ids[]) = 0;  // 77
  virtual HRESULT HandleCreated(GCHandleID, ObjectID initial) = 0;
  virtual HRESULT HandleDestroyed(GCHandleID) = 0;  // 79

 protected:
  ~ICorProfilerCallback2() = default;
};

struct ICorProfilerCallback3 : ICorProfilerCallback2 {
  virtual HRESULT InitializeForAttach(IUnknown* info, void* client_data, UINT client_data_size) = 0;  // 80
  virtual HRESULT ProfilerAttachComplete() = 0;
  virtual HRESULT ProfilerDetachSucceeded() = 0;  // 82

 protected:
  ~ICorProfilerCallback3() = default;
};

struct ICorProfilerCallback4 : ICorProfilerCallback3 {
  virtual HRESULT ReJITCompilationStarted(FunctionID, ReJITID, BOOL is_safe_to_block) = 0;  // 83
  virtual HRESULT GetReJITParameters(ModuleID, mdMethodDef, ICorProfilerFunctionControl*) = 0;
  virtual HRESULT ReJITCompilationFinished(FunctionID, ReJITID, HRESULT, BOOL is_safe_to_block) = 0;
  virtual HRESULT ReJITError(ModuleID, mdMethodDef, FunctionID, HRESULT) = 0;  // 86
  virtual HRESULT MovedReferences2(ULONG ranges, ObjectID old_starts[], ObjectID new_starts[],
                                   SIZE_T lengths[]) = 0;  // 87
  virtual HRESULT SurvivingReferences2(ULONG ranges, ObjectID starts[], SIZE_T lengths[]) = 0;  // 88

 protected:
  ~ICorProfilerCallback4() = default;
};

struct ICorProfilerCallback5 : ICorProfilerCallback4 {
  // keys[i] keeps values[i] alive; root_ids[i] is the dependent handle. Called during the
  // GC's profiler walk, after the root scan and before the heap walk, in batches.
  virtual HRESULT ConditionalWeakTableElementReferences(ULONG count, ObjectID keys[], ObjectID values[],
                                                        GCHandleID root_ids[]) = 0;  // 89

 protected:
  ~ICorProfilerCallback5() = default;
};

// 6 to 9 only to reach 10, whose EventPipeEventDelivered brings the events of the shim's own
// EventPipe session (the GC's reason on .NET 8, shim_session.cpp).
struct ICorProfilerCallback6 : ICorProfilerCallback5 {
  virtual HRESULT GetAssemblyReferences(const WCHAR* path, void* provider) = 0;  // 90

 protected:
  ~ICorProfilerCallback6() = default;
};

struct ICorProfilerCallback7 : ICorProfilerCallback6 {
  virtual HRESULT ModuleInMemorySymbolsUpdated(ModuleID) = 0;  // 91

 protected:
  ~ICorProfilerCallback7() = default;
};

struct ICorProfilerCallback8 : ICorProfilerCallback7 {
  virtual HRESULT DynamicMethodJITCompilationStarted(FunctionID, BOOL is_safe_to_block, LPCBYTE header,
                                                     ULONG header_size) = 0;  // 92
  virtual HRESULT DynamicMethodJITCompilationFinished(FunctionID, HRESULT, BOOL is_safe_to_block) = 0;

 protected:
  ~ICorProfilerCallback8() = default;
};

struct ICorProfilerCallback9 : ICorProfilerCallback8 {
  virtual HRESULT DynamicMethodUnloaded(FunctionID) = 0;  // 94

 protected:
  ~ICorProfilerCallback9() = default;
};

struct ICorProfilerCallback10 : ICorProfilerCallback9 {
  virtual HRESULT EventPipeEventDelivered(EVENTPIPE_PROVIDER provider, DWORD event_id, DWORD event_version,
                                          ULONG metadata_size, LPCBYTE metadata, ULONG data_size, LPCBYTE data,
                                          const GUID* activity, const GUID* related_activity, ThreadID thread,
                                          ULONG frame_count, UINT_PTR frames[]) = 0;  // 95
  virtual HRESULT EventPipeProviderCreated(EVENTPIPE_PROVIDER provider) = 0;

 protected:
  ~ICorProfilerCallback10() = default;
};

}  // namespace gcsnap::shim::com
