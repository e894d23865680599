#pragma once
// The slice of the CoreCLR profiling ABI the shim uses, declared by hand for 64-bit Linux and
// 64-bit Windows (the runtime's corprof.idl and cor.h describe it). No runtime header is
// vendored. x64 Windows has one calling convention, and with single inheritance and no
// virtual destructor g++ (mingw) lays out a vtable as MSVC does: in declaration order.
//
// Rules that keep the vtables right: slot order is declaration order;
// no virtual destructor anywhere (it would add two slots); HRESULT/ULONG/DWORD are 32-bit,
// WCHAR is char16_t, every ID is 64-bit. Info and IMetaDataImport slots the shim never
// calls are declared as placeholders `slotNN_Name()`: they only hold their vtable position.
// tests/shim/abi_layout_test.cpp checks the slot index of every method the shim calls.

#include <cstddef>
#include <cstdint>

namespace gcsnap::shim::com {

using HRESULT = int32_t;
using ULONG = uint32_t;
using DWORD = uint32_t;
using BOOL = int32_t;
using UINT = uint32_t;
using ULONG32 = uint32_t;
using USHORT = uint16_t;
using BYTE = uint8_t;
using LPCBYTE = const BYTE*;
using WCHAR = char16_t;
using UINT_PTR = uintptr_t;
using SIZE_T = size_t;
using mdToken = uint32_t;
using mdTypeDef = mdToken;
using mdMethodDef = mdToken;
using mdFieldDef = mdToken;
using ObjectID = UINT_PTR;
using ClassID = UINT_PTR;
using ModuleID = UINT_PTR;
using FunctionID = UINT_PTR;
using ThreadID = UINT_PTR;
using AssemblyID = UINT_PTR;
using AppDomainID = UINT_PTR;
using GCHandleID = UINT_PTR;
using ReJITID = UINT_PTR;
using CorElementType = uint32_t;
using COR_PRF_GC_REASON = int32_t;
using COR_PRF_GC_ROOT_KIND = int32_t;
using COR_PRF_GC_ROOT_FLAGS = int32_t;
using COR_PRF_TRANSITION_REASON = int32_t;
using COR_PRF_SUSPEND_REASON = int32_t;
using COR_PRF_JIT_CACHE = int32_t;
using COR_PRF_GC_GENERATION = int32_t;
using COR_PRF_STATIC_TYPE = int32_t;
using HCORENUM = void*;

static_assert(sizeof(UINT_PTR) == 8 && sizeof(ULONG) == 4 && sizeof(WCHAR) == 2, "64-bit systems only");

struct GUID {
  uint32_t Data1;
  uint16_t Data2;
  uint16_t Data3;
  uint8_t Data4[8];
};
using IID = GUID;
using CLSID = GUID;
using REFIID = const GUID&;
using REFCLSID = const GUID&;

inline bool operator==(const GUID& a, const GUID& b) noexcept {
  if (a.Data1 != b.Data1 || a.Data2 != b.Data2 || a.Data3 != b.Data3) return false;
  for (int i = 0; i < 8; ++i)
    if (a.Data4[i] != b.Data4[i]) return false;
  return true;
}

// HRESULTs (§8).
inline constexpr HRESULT S_OK = 0;
inline constexpr HRESULT S_FALSE = 1;
inline constexpr HRESULT E_FAIL = static_cast<HRESULT>(0x80004005u);
inline constexpr HRESULT E_NOINTERFACE = static_cast<HRESULT>(0x80004002u);
inline constexpr HRESULT E_POINTER = static_cast<HRESULT>(0x80004003u);
inline constexpr HRESULT E_OUTOFMEMORY = static_cast<HRESULT>(0x8007000Eu);
inline constexpr HRESULT CLASS_E_NOAGGREGATION = static_cast<HRESULT>(0x80040110u);
inline constexpr HRESULT CLASS_E_CLASSNOTAVAILABLE = static_cast<HRESULT>(0x80040111u);
inline constexpr HRESULT CORPROF_E_DATAINCOMPLETE = static_cast<HRESULT>(0x80131351u);
inline constexpr HRESULT CORPROF_E_CLASSID_IS_ARRAY = static_cast<HRESULT>(0x80131365u);
inline constexpr HRESULT CORPROF_E_CLASSID_IS_COMPOSITE = static_cast<HRESULT>(0x80131366u);
inline constexpr HRESULT CORPROF_E_PROFILER_CANCEL_ACTIVATION = static_cast<HRESULT>(0x80131375u);
inline constexpr HRESULT CORPROF_E_NOT_GC_OBJECT = static_cast<HRESULT>(0x80131389u);
inline bool succeeded(HRESULT hr) noexcept { return hr >= 0; }

// Event mask bits (§6).
inline constexpr DWORD COR_PRF_MONITOR_MODULE_LOADS = 0x4;
inline constexpr DWORD COR_PRF_MONITOR_GC = 0x80;
// High event mask bit (SetEventMask2), .NET 11 and later: the runtime skips its gen0 walk for
// ObjectsAllocatedByClass at each GC (corprof.idl of .NET 11; unknown to older runtimes).
inline constexpr DWORD COR_PRF_HIGH_MONITOR_GC_SKIP_ALLOCATED_BY_CLASS_STATISTIC = 0x200;
// High event mask bits (§6): GC start/finish and generation bounds for every GC with background
// GC left on; MovedReferences at compacting GCs only. Neither brings the gen0 class walk.
inline constexpr DWORD COR_PRF_HIGH_BASIC_GC = 0x10;
inline constexpr DWORD COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS = 0x20;
/// Low event mask bit: DoStackSnapshot may be called (CORPROF_E_INCONSISTENT_WITH_FLAGS without it).
inline constexpr DWORD COR_PRF_ENABLE_STACK_SNAPSHOT = 0x10000000;
/// DoStackSnapshot's callback (corprof.idl StackSnapshotCallback): FunctionID 0 for a native frame.
using COR_PRF_FRAME_INFO = UINT_PTR;
using StackSnapshotCallback = HRESULT(FunctionID function, UINT_PTR ip, COR_PRF_FRAME_INFO frame_info,
                                      ULONG32 context_size, BYTE context[], void* client_data);
/// Deliver the events of the profiler's own EventPipe sessions to EventPipeEventDelivered.
inline constexpr DWORD COR_PRF_HIGH_MONITOR_EVENT_PIPE = 0x80;
// COR_PRF_STATIC_TYPE bits (GetStaticFieldInfo).
inline constexpr COR_PRF_STATIC_TYPE COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1;
inline constexpr COR_PRF_STATIC_TYPE COR_PRF_FIELD_THREAD_STATIC = 0x2;
inline constexpr COR_PRF_STATIC_TYPE COR_PRF_FIELD_CONTEXT_STATIC = 0x4;
inline constexpr COR_PRF_STATIC_TYPE COR_PRF_FIELD_RVA_STATIC = 0x8;
inline constexpr int32_t COR_PRF_GC_ROOT_STACK = 1;
inline constexpr int32_t COR_PRF_GC_REASON_INDUCED = 1;
inline constexpr DWORD ofRead = 0;

// EventPipe (ICorProfilerInfo12 / ICorProfilerCallback10).
using EVENTPIPE_PROVIDER = UINT_PTR;
using EVENTPIPE_SESSION = uint64_t;
struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
  const WCHAR* provider_name;
  uint64_t keywords;
  uint32_t logging_level;
  const WCHAR* filter_data;
};
static_assert(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG) == 32);

struct COR_PRF_GC_GENERATION_RANGE {
  COR_PRF_GC_GENERATION generation;
  ObjectID rangeStart;
  UINT_PTR rangeLength;
  UINT_PTR rangeLengthReserved;
};
static_assert(sizeof(COR_PRF_GC_GENERATION_RANGE) == 32);

// Reference §4: a field token and its offset, from GetClassLayout.
struct COR_FIELD_OFFSET {
  mdFieldDef ridOfField;
  ULONG ulOffset;
};
static_assert(sizeof(COR_FIELD_OFFSET) == 8);

struct COR_PRF_NONGC_HEAP_RANGE {
  ObjectID rangeStart;
  UINT_PTR rangeLength;
  UINT_PTR rangeLengthReserved;
};

// IIDs (§5).
inline constexpr IID IID_IUnknown = {0x00000000, 0x0000, 0x0000, {0xC0, 0, 0, 0, 0, 0, 0, 0x46}};
inline constexpr IID IID_IClassFactory = {0x00000001, 0x0000, 0x0000, {0xC0, 0, 0, 0, 0, 0, 0, 0x46}};
inline constexpr IID IID_ICorProfilerCallback = {0x176FBED1, 0xA55C, 0x4796, {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7}};
inline constexpr IID IID_ICorProfilerCallback2 = {0x8A8CC829, 0xCCF2, 0x49FE, {0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A}};
inline constexpr IID IID_ICorProfilerCallback3 = {0x4FD2ED52, 0x7731, 0x4B8D, {0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5}};
inline constexpr IID IID_ICorProfilerCallback4 = {0x7B63B2E3, 0x107D, 0x4D48, {0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2}};
inline constexpr IID IID_ICorProfilerCallback5 = {0x8DFBA405, 0x8C9F, 0x45F8, {0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5}};
inline constexpr IID IID_ICorProfilerCallback6 = {0xFC13DF4B, 0x4448, 0x4F4F, {0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36}};
inline constexpr IID IID_ICorProfilerCallback7 = {0xF76A2DBA, 0x1D52, 0x4539, {0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3}};
inline constexpr IID IID_ICorProfilerCallback8 = {0x5BED9B15, 0xC079, 0x4D47, {0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0}};
inline constexpr IID IID_ICorProfilerCallback9 = {0x27583EC3, 0xC8F5, 0x482F, {0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A}};
inline constexpr IID IID_ICorProfilerCallback10 = {0xCEC5B60E, 0xC69C, 0x495F, {0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB}};
inline constexpr IID IID_ICorProfilerInfo = {0x28B5557D, 0x3F3F, 0x48B4, {0x90, 0xB2, 0x5F, 0x9E, 0xEA, 0x2F, 0x6C, 0x48}};
inline constexpr IID IID_ICorProfilerInfo2 = {0xCC0935CD, 0xA518, 0x487D, {0xB0, 0xBB, 0xA9, 0x32, 0x14, 0xE6, 0x54, 0x78}};
inline constexpr IID IID_ICorProfilerInfo3 = {0xB555ED4F, 0x452A, 0x4E54, {0x8B, 0x39, 0xB5, 0x36, 0x0B, 0xAD, 0x32, 0xA0}};
inline constexpr IID IID_ICorProfilerInfo4 = {0x0D8FDCAA, 0x6257, 0x47BF, {0xB1, 0xBF, 0x94, 0xDA, 0xC8, 0x84, 0x66, 0xEE}};
inline constexpr IID IID_ICorProfilerInfo5 = {0x07602928, 0xCE38, 0x4B83, {0x81, 0xE7, 0x74, 0xAD, 0xAF, 0x78, 0x12, 0x14}};
inline constexpr IID IID_ICorProfilerInfo6 = {0xF30A070D, 0xBFFB, 0x46A7, {0xB1, 0xD8, 0x87, 0x81, 0xEF, 0x7B, 0x69, 0x8A}};
inline constexpr IID IID_ICorProfilerInfo7 = {0x9AEECC0D, 0x63E0, 0x4187, {0x8C, 0x00, 0xE3, 0x12, 0xF5, 0x03, 0xF6, 0x63}};
inline constexpr IID IID_ICorProfilerInfo8 = {0xC5AC80A6, 0x782E, 0x4716, {0x80, 0x44, 0x39, 0x59, 0x8C, 0x60, 0xCF, 0xBF}};
inline constexpr IID IID_ICorProfilerInfo9 = {0x008170DB, 0xF8CC, 0x4796, {0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12}};
inline constexpr IID IID_ICorProfilerInfo10 = {0x2F1B5152, 0xC869, 0x40C9, {0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20}};
inline constexpr IID IID_ICorProfilerInfo11 = {0x06398876, 0x8987, 0x4154, {0xB6, 0x21, 0x40, 0xA0, 0x0D, 0x6E, 0x4D, 0x04}};
inline constexpr IID IID_ICorProfilerInfo12 = {0x27B24CCD, 0x1CB1, 0x47C5, {0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59}};
inline constexpr IID IID_ICorProfilerInfo13 = {0x6E6C7EE2, 0x0701, 0x4EC2, {0x9D, 0x29, 0x2E, 0x87, 0x33, 0xB6, 0x69, 0x34}};
inline constexpr IID IID_ICorProfilerInfo14 = {0xF460E352, 0xD76D, 0x4FE9, {0x83, 0x5F, 0xF6, 0xAF, 0x9D, 0x6E, 0x86, 0x2D}};
inline constexpr IID IID_IMetaDataImport = {0x7DAC8207, 0xD3AE, 0x4C75, {0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44}};

struct IUnknown {
  virtual HRESULT QueryInterface(REFIID riid, void** ppv) = 0;  // 0
  virtual ULONG AddRef() = 0;                                   // 1
  virtual ULONG Release() = 0;                                  // 2

 protected:
  ~IUnknown() = default;
};

struct IClassFactory : IUnknown {
  virtual HRESULT CreateInstance(IUnknown* outer, REFIID riid, void** ppv) = 0;  // 3
  virtual HRESULT LockServer(BOOL lock) = 0;                                     // 4

 protected:
  ~IClassFactory() = default;
};

struct ICorProfilerFunctionControl;

}  // namespace gcsnap::shim::com

#include "cor_profiler_callback_abi.hpp"  // IWYU pragma: export
#include "cor_profiler_info_abi.hpp"      // IWYU pragma: export
