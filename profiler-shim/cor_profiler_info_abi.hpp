#pragma once
// ICorProfilerInfo .. ICorProfilerInfo14 (dotnet/runtime v8.0.0, src/coreclr/inc/corprof.idl)
// and IMetaDataImport up to GetNestedClassProps, GetFieldProps included (src/coreclr/inc/cor.h).
// Methods the shim calls carry their real signatures; the others are placeholders
// `slotNN_Name()` that only hold their position.
// Included by cor_profiler_abi.hpp; do not include directly.

namespace gcsnap::shim::com {

/// What EnumModules returns (corprof.idl ICorProfilerModuleEnum).
struct ICorProfilerModuleEnum : IUnknown {
  virtual HRESULT Skip(ULONG count) = 0;                                    // 3
  virtual HRESULT Reset() = 0;                                              // 4
  virtual HRESULT Clone(ICorProfilerModuleEnum** copy) = 0;                 // 5
  virtual HRESULT GetCount(ULONG* count) = 0;                               // 6
  virtual HRESULT Next(ULONG capacity, ModuleID modules[], ULONG* fetched) = 0;  // 7

 protected:
  ~ICorProfilerModuleEnum() = default;
};

struct ICorProfilerInfo : IUnknown {
  virtual HRESULT GetClassFromObject(ObjectID object, ClassID* class_id) = 0;  // 3
  virtual HRESULT slot4_GetClassFromToken() = 0;
  virtual HRESULT slot5_GetCodeInfo() = 0;
  virtual HRESULT GetEventMask(DWORD* mask) = 0;  // 6
  virtual HRESULT GetFunctionFromIP(LPCBYTE ip, FunctionID* function) = 0;  // 7
  virtual HRESULT GetFunctionFromToken(ModuleID module, mdToken token, FunctionID* function) = 0;  // 8
  virtual HRESULT slot9_GetHandleFromThread() = 0;
  virtual HRESULT GetObjectSize(ObjectID object, ULONG* size) = 0;  // 10
  virtual HRESULT IsArrayClass(ClassID class_id, CorElementType* element_type, ClassID* element_class, ULONG* rank) = 0;  // 11
  virtual HRESULT slot12_GetThreadInfo() = 0;
  virtual HRESULT GetCurrentThreadID(ThreadID* thread) = 0;  // 13
  virtual HRESULT GetClassIDInfo(ClassID class_id, ModuleID* module, mdTypeDef* token) = 0;  // 14
  virtual HRESULT GetFunctionInfo(FunctionID function, ClassID* class_id, ModuleID* module, mdToken* token) = 0;  // 15
  virtual HRESULT SetEventMask(DWORD mask) = 0;  // 16
  virtual HRESULT slot17_SetEnterLeaveFunctionHooks() = 0;
  virtual HRESULT slot18_SetFunctionIDMapper() = 0;
  virtual HRESULT slot19_GetTokenAndMetaDataFromFunction() = 0;
  virtual HRESULT GetModuleInfo(ModuleID module, LPCBYTE* base, ULONG name_capacity, ULONG* name_length, WCHAR name[], AssemblyID* assembly) = 0;  // 20
  virtual HRESULT GetModuleMetaData(ModuleID module, DWORD open_flags, REFIID riid, IUnknown** out) = 0;  // 21
  virtual HRESULT slot22_GetILFunctionBody() = 0;
  virtual HRESULT slot23_GetILFunctionBodyAllocator() = 0;
  virtual HRESULT slot24_SetILFunctionBody() = 0;
  virtual HRESULT slot25_GetAppDomainInfo() = 0;
  virtual HRESULT GetAssemblyInfo(AssemblyID assembly, ULONG name_capacity, ULONG* name_length, WCHAR name[], AppDomainID* app_domain, ModuleID* module) = 0;  // 26
  virtual HRESULT slot27_SetFunctionReJIT() = 0;
  virtual HRESULT ForceGC() = 0;  // 28
  virtual HRESULT slot29_SetILInstrumentedCodeMap() = 0;
  virtual HRESULT slot30_GetInprocInspectionInterface() = 0;
  virtual HRESULT slot31_GetInprocInspectionIThisThread() = 0;
  virtual HRESULT slot32_GetThreadContext() = 0;
  virtual HRESULT slot33_BeginInprocDebugging() = 0;
  virtual HRESULT slot34_EndInprocDebugging() = 0;
  virtual HRESULT slot35_GetILToNativeMapping() = 0;

 protected:
  ~ICorProfilerInfo() = default;
};

struct ICorProfilerInfo2 : ICorProfilerInfo {
  virtual HRESULT DoStackSnapshot(ThreadID thread, StackSnapshotCallback* callback, ULONG32 info_flags, void* client_data, BYTE context[], ULONG32 context_size) = 0;  // 36
  virtual HRESULT slot37_SetEnterLeaveFunctionHooks2() = 0;
  virtual HRESULT GetFunctionInfo2(FunctionID function, COR_PRF_FRAME_INFO frame, ClassID* class_id, ModuleID* module, mdToken* token, ULONG32 type_arg_capacity, ULONG32* type_arg_count, ClassID type_args[]) = 0;  // 38
  virtual HRESULT slot39_GetStringLayout() = 0;
  virtual HRESULT GetClassLayout(ClassID class_id, COR_FIELD_OFFSET offsets[], ULONG capacity, ULONG* count, ULONG* class_size) = 0;  // 40
  virtual HRESULT GetClassIDInfo2(ClassID class_id, ModuleID* module, mdTypeDef* token, ClassID* parent, ULONG32 type_arg_capacity, ULONG32* type_arg_count, ClassID type_args[]) = 0;  // 41
  virtual HRESULT slot42_GetCodeInfo2() = 0;
  virtual HRESULT slot43_GetClassFromTokenAndTypeArgs() = 0;
  virtual HRESULT slot44_GetFunctionFromTokenAndTypeArgs() = 0;
  virtual HRESULT slot45_EnumModuleFrozenObjects() = 0;
  virtual HRESULT GetArrayObjectInfo(ObjectID object, ULONG32 dimensions, ULONG32 sizes[], int lower_bounds[], BYTE** data) = 0;  // 46
  virtual HRESULT slot47_GetBoxClassLayout() = 0;
  virtual HRESULT slot48_GetThreadAppDomain() = 0;
  virtual HRESULT slot49_GetRVAStaticAddress() = 0;
  virtual HRESULT GetAppDomainStaticAddress(ClassID class_id, mdFieldDef field, AppDomainID app_domain, void** address) = 0;  // 50
  virtual HRESULT slot51_GetThreadStaticAddress() = 0;
  virtual HRESULT slot52_GetContextStaticAddress() = 0;
  virtual HRESULT GetStaticFieldInfo(ClassID class_id, mdFieldDef field, COR_PRF_STATIC_TYPE* info) = 0;  // 53
  virtual HRESULT GetGenerationBounds(ULONG capacity, ULONG* count, COR_PRF_GC_GENERATION_RANGE ranges[]) = 0;  // 54
  virtual HRESULT GetObjectGeneration(ObjectID object, COR_PRF_GC_GENERATION_RANGE* range) = 0;  // 55
  virtual HRESULT slot56_GetNotifiedExceptionClauseInfo() = 0;

 protected:
  ~ICorProfilerInfo2() = default;
};

struct ICorProfilerInfo3 : ICorProfilerInfo2 {
  virtual HRESULT slot57_EnumJITedFunctions() = 0;
  virtual HRESULT RequestProfilerDetach(DWORD expected_completion_ms) = 0;  // 58
  virtual HRESULT slot59_SetFunctionIDMapper2() = 0;
  virtual HRESULT slot60_GetStringLayout2() = 0;
  virtual HRESULT slot61_SetEnterLeaveFunctionHooks3() = 0;
  virtual HRESULT slot62_SetEnterLeaveFunctionHooks3WithInfo() = 0;
  virtual HRESULT slot63_GetFunctionEnter3Info() = 0;
  virtual HRESULT slot64_GetFunctionLeave3Info() = 0;
  virtual HRESULT slot65_GetFunctionTailcall3Info() = 0;
  virtual HRESULT EnumModules(ICorProfilerModuleEnum** modules) = 0;  // 66
  virtual HRESULT GetRuntimeInformation(USHORT* clr_instance, int32_t* runtime_type, USHORT* major, USHORT* minor,
                                        USHORT* build, USHORT* qfe, ULONG version_capacity, ULONG* version_length,
                                        WCHAR version[]) = 0;  // 67
  virtual HRESULT slot68_GetThreadStaticAddress2() = 0;
  virtual HRESULT slot69_GetAppDomainsContainingModule() = 0;
  virtual HRESULT slot70_GetModuleInfo2() = 0;

 protected:
  ~ICorProfilerInfo3() = default;
};

struct ICorProfilerInfo4 : ICorProfilerInfo3 {
  virtual HRESULT slot71_EnumThreads() = 0;
  virtual HRESULT InitializeCurrentThread() = 0;  // 72
  virtual HRESULT slot73_RequestReJIT() = 0;
  virtual HRESULT slot74_RequestRevert() = 0;
  virtual HRESULT slot75_GetCodeInfo3() = 0;
  virtual HRESULT slot76_GetFunctionFromIP2() = 0;
  virtual HRESULT slot77_GetReJITIDs() = 0;
  virtual HRESULT slot78_GetILToNativeMapping2() = 0;
  virtual HRESULT slot79_EnumJITedFunctions2() = 0;
  virtual HRESULT GetObjectSize2(ObjectID object, SIZE_T* size) = 0;  // 80

 protected:
  ~ICorProfilerInfo4() = default;
};

struct ICorProfilerInfo5 : ICorProfilerInfo4 {
  virtual HRESULT GetEventMask2(DWORD* low, DWORD* high) = 0;  // 81
  virtual HRESULT SetEventMask2(DWORD low, DWORD high) = 0;  // 82

 protected:
  ~ICorProfilerInfo5() = default;
};

struct ICorProfilerInfo6 : ICorProfilerInfo5 {
  virtual HRESULT slot83_EnumNgenModuleMethodsInliningThisMethod() = 0;

 protected:
  ~ICorProfilerInfo6() = default;
};

struct ICorProfilerInfo7 : ICorProfilerInfo6 {
  virtual HRESULT slot84_ApplyMetaData() = 0;
  virtual HRESULT slot85_GetInMemorySymbolsLength() = 0;
  virtual HRESULT slot86_ReadInMemorySymbols() = 0;

 protected:
  ~ICorProfilerInfo7() = default;
};

struct ICorProfilerInfo8 : ICorProfilerInfo7 {
  virtual HRESULT slot87_IsFunctionDynamic() = 0;
  virtual HRESULT slot88_GetFunctionFromIP3() = 0;
  virtual HRESULT slot89_GetDynamicFunctionInfo() = 0;

 protected:
  ~ICorProfilerInfo8() = default;
};

struct ICorProfilerInfo9 : ICorProfilerInfo8 {
  virtual HRESULT slot90_GetNativeCodeStartAddresses() = 0;
  virtual HRESULT slot91_GetILToNativeMapping3() = 0;
  virtual HRESULT slot92_GetCodeInfo4() = 0;

 protected:
  ~ICorProfilerInfo9() = default;
};

struct ICorProfilerInfo10 : ICorProfilerInfo9 {
  virtual HRESULT slot93_EnumerateObjectReferences() = 0;
  virtual HRESULT IsFrozenObject(ObjectID object, BOOL* frozen) = 0;  // 94
  virtual HRESULT slot95_GetLOHObjectSizeThreshold() = 0;
  virtual HRESULT slot96_RequestReJITWithInliners() = 0;
  virtual HRESULT slot97_SuspendRuntime() = 0;
  virtual HRESULT slot98_ResumeRuntime() = 0;

 protected:
  ~ICorProfilerInfo10() = default;
};

struct ICorProfilerInfo11 : ICorProfilerInfo10 {
  virtual HRESULT slot99_GetEnvironmentVariable() = 0;
  virtual HRESULT slot100_SetEnvironmentVariable() = 0;

 protected:
  ~ICorProfilerInfo11() = default;
};

struct ICorProfilerInfo12 : ICorProfilerInfo11 {
  virtual HRESULT EventPipeStartSession(uint32_t config_count, COR_PRF_EVENTPIPE_PROVIDER_CONFIG configs[],
                                        BOOL request_rundown, EVENTPIPE_SESSION* session) = 0;  // 101
  virtual HRESULT slot102_EventPipeAddProviderToSession() = 0;
  virtual HRESULT EventPipeStopSession(EVENTPIPE_SESSION session) = 0;  // 103
  virtual HRESULT slot104_EventPipeCreateProvider() = 0;
  virtual HRESULT slot105_EventPipeGetProviderInfo() = 0;
  virtual HRESULT slot106_EventPipeDefineEvent() = 0;
  virtual HRESULT slot107_EventPipeWriteEvent() = 0;

 protected:
  ~ICorProfilerInfo12() = default;
};

struct ICorProfilerInfo13 : ICorProfilerInfo12 {
  virtual HRESULT slot108_CreateHandle() = 0;
  virtual HRESULT slot109_DestroyHandle() = 0;
  virtual HRESULT slot110_GetObjectIDFromHandle() = 0;

 protected:
  ~ICorProfilerInfo13() = default;
};

struct ICorProfilerInfo14 : ICorProfilerInfo13 {
  virtual HRESULT slot111_EnumerateNonGCObjects() = 0;
  virtual HRESULT GetNonGCHeapBounds(ULONG capacity, ULONG* count, COR_PRF_NONGC_HEAP_RANGE ranges[]) = 0;  // 112
  virtual HRESULT slot113_EventPipeCreateProvider2() = 0;

 protected:
  ~ICorProfilerInfo14() = default;
};

struct IMetaDataImport : IUnknown {
  virtual void CloseEnum(HCORENUM e) = 0;  // 3 (returns nothing)
  virtual HRESULT slot4_CountEnum() = 0;
  virtual HRESULT slot5_ResetEnum() = 0;
  virtual HRESULT EnumTypeDefs(HCORENUM* e, mdTypeDef type_defs[], ULONG capacity, ULONG* count) = 0;  // 6
  virtual HRESULT slot7_EnumInterfaceImpls() = 0;
  virtual HRESULT slot8_EnumTypeRefs() = 0;
  virtual HRESULT slot9_FindTypeDefByName() = 0;
  virtual HRESULT slot10_GetScopeProps() = 0;
  virtual HRESULT slot11_GetModuleFromScope() = 0;
  virtual HRESULT GetTypeDefProps(mdTypeDef type_def, WCHAR name[], ULONG name_capacity, ULONG* name_length, DWORD* flags, mdToken* extends) = 0;  // 12
  virtual HRESULT slot13_GetInterfaceImplProps() = 0;
  virtual HRESULT slot14_GetTypeRefProps() = 0;
  virtual HRESULT slot15_ResolveTypeRef() = 0;
  virtual HRESULT slot16_EnumMembers() = 0;
  virtual HRESULT slot17_EnumMembersWithName() = 0;
  virtual HRESULT EnumMethods(HCORENUM* e, mdTypeDef type_def, mdMethodDef methods[], ULONG capacity, ULONG* count) = 0;  // 18
  virtual HRESULT slot19_EnumMethodsWithName() = 0;
  virtual HRESULT EnumFields(HCORENUM* e, mdTypeDef type_def, mdFieldDef fields[], ULONG capacity, ULONG* count) = 0;  // 20
  virtual HRESULT slot21_EnumFieldsWithName() = 0;
  virtual HRESULT slot22_EnumParams() = 0;
  virtual HRESULT slot23_EnumMemberRefs() = 0;
  virtual HRESULT slot24_EnumMethodImpls() = 0;
  virtual HRESULT slot25_EnumPermissionSets() = 0;
  virtual HRESULT slot26_FindMember() = 0;
  virtual HRESULT slot27_FindMethod() = 0;
  virtual HRESULT slot28_FindField() = 0;
  virtual HRESULT slot29_FindMemberRef() = 0;
  virtual HRESULT GetMethodProps(mdMethodDef method, mdTypeDef* owner, WCHAR name[], ULONG name_capacity, ULONG* name_length, DWORD* attributes, const BYTE** signature, ULONG* signature_size, ULONG* code_rva, DWORD* impl_flags) = 0;  // 30
  virtual HRESULT slot31_GetMemberRefProps() = 0;
  virtual HRESULT slot32_EnumProperties() = 0;
  virtual HRESULT slot33_EnumEvents() = 0;
  virtual HRESULT slot34_GetEventProps() = 0;
  virtual HRESULT slot35_EnumMethodSemantics() = 0;
  virtual HRESULT slot36_GetMethodSemantics() = 0;
  virtual HRESULT slot37_GetClassLayout() = 0;
  virtual HRESULT slot38_GetFieldMarshal() = 0;
  virtual HRESULT slot39_GetRVA() = 0;
  virtual HRESULT slot40_GetPermissionSetProps() = 0;
  virtual HRESULT slot41_GetSigFromToken() = 0;
  virtual HRESULT slot42_GetModuleRefProps() = 0;
  virtual HRESULT slot43_EnumModuleRefs() = 0;
  virtual HRESULT slot44_GetTypeSpecFromToken() = 0;
  virtual HRESULT slot45_GetNameFromToken() = 0;
  virtual HRESULT slot46_EnumUnresolvedMethods() = 0;
  virtual HRESULT slot47_GetUserString() = 0;
  virtual HRESULT slot48_GetPinvokeMap() = 0;
  virtual HRESULT slot49_EnumSignatures() = 0;
  virtual HRESULT slot50_EnumTypeSpecs() = 0;
  virtual HRESULT slot51_EnumUserStrings() = 0;
  virtual HRESULT slot52_GetParamForMethodIndex() = 0;
  virtual HRESULT slot53_EnumCustomAttributes() = 0;
  virtual HRESULT slot54_GetCustomAttributeProps() = 0;
  virtual HRESULT slot55_FindTypeRef() = 0;
  virtual HRESULT slot56_GetMemberProps() = 0;
  virtual HRESULT GetFieldProps(mdFieldDef field, mdTypeDef* owner, WCHAR name[], ULONG name_capacity, ULONG* name_length, DWORD* attributes, const BYTE** signature, ULONG* signature_size, DWORD* constant_type, const void** constant, ULONG* constant_length) = 0;  // 57
  virtual HRESULT slot58_GetPropertyProps() = 0;
  virtual HRESULT slot59_GetParamProps() = 0;
  virtual HRESULT slot60_GetCustomAttributeByName() = 0;
  virtual HRESULT slot61_IsValidToken() = 0;
  virtual HRESULT GetNestedClassProps(mdTypeDef nested, mdTypeDef* enclosing) = 0;  // 62

 protected:
  ~IMetaDataImport() = default;
};

}  // namespace gcsnap::shim::com
