// Every COM method the shim calls or answers must sit at the vtable slot the runtime uses
// (dotnet/runtime v8.0.0, src/coreclr/inc/corprof.idl). Under the Itanium ABI a pointer to a virtual member function holds
// 1 + the slot's byte offset in the vtable, which gives the slot index at compile time's cost.
#include <cstring>

#include <catch2/catch.hpp>

#include "cor_profiler_abi.hpp"

using namespace gcsnap::shim::com;

namespace {

template <typename Method>
long slot_of(Method method) {
  static_assert(sizeof(Method) == 2 * sizeof(void*));
  long raw = 0;
  std::memcpy(&raw, &method, sizeof(raw));
  return (raw - 1) / static_cast<long>(sizeof(void*));
}

}  // namespace

TEST_CASE("callback slots match the runtime's vtable", "[shim][abi]") {
  CHECK(slot_of(&ICorProfilerCallback::Initialize) == 3);
  CHECK(slot_of(&ICorProfilerCallback::Shutdown) == 4);
  CHECK(slot_of(&ICorProfilerCallback::MovedReferences) == 49);
  CHECK(slot_of(&ICorProfilerCallback::ObjectReferences) == 52);
  CHECK(slot_of(&ICorProfilerCallback::RootReferences) == 53);
  CHECK(slot_of(&ICorProfilerCallback::ExceptionCLRCatcherExecute) == 71);
  CHECK(slot_of(&ICorProfilerCallback2::GarbageCollectionStarted) == 73);
  CHECK(slot_of(&ICorProfilerCallback2::GarbageCollectionFinished) == 75);
  CHECK(slot_of(&ICorProfilerCallback2::RootReferences2) == 77);
  CHECK(slot_of(&ICorProfilerCallback2::HandleDestroyed) == 79);
  CHECK(slot_of(&ICorProfilerCallback3::InitializeForAttach) == 80);
  CHECK(slot_of(&ICorProfilerCallback3::ProfilerDetachSucceeded) == 82);
  CHECK(slot_of(&ICorProfilerCallback4::MovedReferences2) == 87);
  CHECK(slot_of(&ICorProfilerCallback4::SurvivingReferences2) == 88);
  CHECK(slot_of(&ICorProfilerCallback5::ConditionalWeakTableElementReferences) == 89);
  CHECK(slot_of(&ICorProfilerCallback6::GetAssemblyReferences) == 90);
  CHECK(slot_of(&ICorProfilerCallback7::ModuleInMemorySymbolsUpdated) == 91);
  CHECK(slot_of(&ICorProfilerCallback8::DynamicMethodJITCompilationFinished) == 93);
  CHECK(slot_of(&ICorProfilerCallback9::DynamicMethodUnloaded) == 94);
  CHECK(slot_of(&ICorProfilerCallback10::EventPipeEventDelivered) == 95);
  CHECK(slot_of(&ICorProfilerCallback10::EventPipeProviderCreated) == 96);
}

TEST_CASE("info slots the shim calls match the runtime's vtable", "[shim][abi]") {
  CHECK(slot_of(&ICorProfilerInfo::GetClassFromObject) == 3);
  CHECK(slot_of(&ICorProfilerInfo::IsArrayClass) == 11);
  CHECK(slot_of(&ICorProfilerInfo::GetCurrentThreadID) == 13);
  CHECK(slot_of(&ICorProfilerInfo::GetClassIDInfo) == 14);
  CHECK(slot_of(&ICorProfilerInfo::GetFunctionInfo) == 15);
  CHECK(slot_of(&ICorProfilerInfo::SetEventMask) == 16);
  CHECK(slot_of(&ICorProfilerInfo::GetModuleInfo) == 20);
  CHECK(slot_of(&ICorProfilerInfo::GetModuleMetaData) == 21);
  CHECK(slot_of(&ICorProfilerInfo::ForceGC) == 28);
  CHECK(slot_of(&ICorProfilerInfo2::DoStackSnapshot) == 36);
  CHECK(slot_of(&ICorProfilerInfo2::GetClassLayout) == 40);
  CHECK(slot_of(&ICorProfilerInfo2::GetClassIDInfo2) == 41);
  CHECK(slot_of(&ICorProfilerInfo2::GetArrayObjectInfo) == 46);
  CHECK(slot_of(&ICorProfilerInfo2::GetGenerationBounds) == 54);
  CHECK(slot_of(&ICorProfilerInfo4::GetObjectSize2) == 80);
  CHECK(slot_of(&ICorProfilerInfo5::SetEventMask2) == 82);
  CHECK(slot_of(&ICorProfilerInfo3::GetRuntimeInformation) == 67);
  CHECK(slot_of(&ICorProfilerInfo10::IsFrozenObject) == 94);
  CHECK(slot_of(&ICorProfilerInfo12::EventPipeStartSession) == 101);
  CHECK(slot_of(&ICorProfilerInfo12::EventPipeStopSession) == 103);
  CHECK(slot_of(&ICorProfilerInfo14::GetNonGCHeapBounds) == 112);
  CHECK(slot_of(&ICorProfilerInfo14::slot113_EventPipeCreateProvider2) == 113);
}

TEST_CASE("metadata import slots match cor.h", "[shim][abi]") {
  CHECK(slot_of(&IMetaDataImport::GetTypeDefProps) == 12);
  CHECK(slot_of(&IMetaDataImport::GetMethodProps) == 30);
  CHECK(slot_of(&IMetaDataImport::GetFieldProps) == 57);
  CHECK(slot_of(&IMetaDataImport::GetNestedClassProps) == 62);
}

TEST_CASE("ABI types have the Linux sizes", "[shim][abi]") {
  CHECK(sizeof(HRESULT) == 4);
  CHECK(sizeof(ULONG) == 4);
  CHECK(sizeof(WCHAR) == 2);
  CHECK(sizeof(GUID) == 16);
  CHECK(sizeof(COR_PRF_GC_GENERATION_RANGE) == 32);
  CHECK(sizeof(COR_PRF_NONGC_HEAP_RANGE) == 24);
}

TEST_CASE("statics: info, module enumerator and metadata slots match the runtime's vtable", "[shim][abi]") {
  CHECK(slot_of(&ICorProfilerInfo::GetFunctionFromToken) == 8);
  CHECK(slot_of(&ICorProfilerInfo::GetAssemblyInfo) == 26);
  CHECK(slot_of(&ICorProfilerInfo2::GetAppDomainStaticAddress) == 50);
  CHECK(slot_of(&ICorProfilerInfo2::GetStaticFieldInfo) == 53);
  CHECK(slot_of(&ICorProfilerInfo3::EnumModules) == 66);
  CHECK(slot_of(&ICorProfilerModuleEnum::GetCount) == 6);
  CHECK(slot_of(&ICorProfilerModuleEnum::Next) == 7);
  CHECK(slot_of(&IMetaDataImport::CloseEnum) == 3);
  CHECK(slot_of(&IMetaDataImport::EnumTypeDefs) == 6);
  CHECK(slot_of(&IMetaDataImport::EnumMethods) == 18);
  CHECK(slot_of(&IMetaDataImport::EnumFields) == 20);
  CHECK(slot_of(&IMetaDataImport::GetMethodProps) == 30);
  CHECK(slot_of(&IMetaDataImport::GetFieldProps) == 57);
  CHECK(slot_of(&IMetaDataImport::GetNestedClassProps) == 62);
}
