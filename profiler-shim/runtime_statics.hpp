#pragma once
// StaticsRuntime over ICorProfilerInfo (docs/shim.md "Field names", statics): the metadata
// scan of a module, and the class and static address of a type that is already loaded, with
// calls that neither load a type nor trigger a GC. Used on the writer thread only (a native
// thread without a runtime Thread, where these SYNC calls are allowed: dotnet/runtime v8.0.0,
// src/coreclr/vm/proftoeeinterfaceimpl.cpp), except
// enumerate_modules, which runs on the attach thread in ProfilerAttachComplete.

#include <unordered_map>
#include <vector>

#include "cor_profiler_abi.hpp"
#include "static_slots.hpp"

namespace gcsnap::shim {

class RuntimeStatics final : public StaticsRuntime {
 public:
  explicit RuntimeStatics(com::ICorProfilerInfo4* info) : info_(info) {}

  bool module_types(uint64_t module, std::vector<StaticTypeInfo>& out) override;
  Lookup class_of(uint64_t module, const StaticTypeInfo& type, uint64_t& class_id) override;
  Lookup static_address(uint64_t module, uint64_t class_id, uint32_t field, uint64_t& address) override;

  /// The modules loaded now (EnumModules), for an attached session's catch-up. The HRESULT
  /// of the first call that failed, S_OK otherwise.
  com::HRESULT enumerate_modules(std::vector<uint64_t>& out);

 private:
  com::ICorProfilerInfo4* info_;
  std::unordered_map<uint64_t, com::AppDomainID> app_domains_;  ///< per module, from its assembly
};

}  // namespace gcsnap::shim
