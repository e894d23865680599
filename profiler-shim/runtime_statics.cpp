#include "runtime_statics.hpp"

#include <string>

#include "field_signature.hpp"
#include "runtime_queries.hpp"
#include "type_name_format.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;
constexpr ULONG kNameCapacity = 1024;
constexpr int kMaxNesting = 32;
constexpr HRESULT kInvalidArg = static_cast<HRESULT>(0x80070057u);  // E_INVALIDARG
constexpr BYTE kCallConvGeneric = 0x10;                             // IMAGE_CEE_CS_CALLCONV_GENERIC

/// Closes a metadata enumeration however the scan leaves.
struct EnumCloser {
  IMetaDataImport* metadata;
  HCORENUM handle = nullptr;
  ~EnumCloser() {
    if (handle) metadata->CloseEnum(handle);
  }
};

/// Releases a COM reference however the scan leaves.
template <typename T>
struct Released {
  T* p = nullptr;
  ~Released() {
    if (p) p->Release();
  }
};

std::string name_of(const WCHAR* buffer, ULONG length) {
  size_t n = length <= kNameCapacity ? length : kNameCapacity;
  while (n > 0 && buffer[n - 1] == 0) --n;
  return utf16_to_utf8(buffer, n);
}

/// The metadata names of TOKEN and its enclosing types, outermost first; false for a generic
/// type or one nested in a generic type (their statics are per instantiation: not named).
bool plain_type_chain(IMetaDataImport* metadata, mdTypeDef token, std::vector<std::string>& chain) {
  std::vector<std::string> inner_first;
  for (int depth = 0; depth < kMaxNesting; ++depth) {
    WCHAR buffer[kNameCapacity];
    ULONG length = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (!succeeded(metadata->GetTypeDefProps(token, buffer, kNameCapacity, &length, &flags, &extends))) return false;
    std::string name = name_of(buffer, length);
    if (arity_of(name) != 0) return false;
    inner_first.push_back(std::move(name));
    mdTypeDef enclosing = 0;
    if (metadata->GetNestedClassProps(token, &enclosing) != S_OK || enclosing == 0 || enclosing == token) {
      chain.assign(inner_first.rbegin(), inner_first.rend());
      return true;
    }
    token = enclosing;
  }
  return false;
}

/// A method of TYPE that is not generic itself: its MethodDesc is in the module's RID map once
/// the type is loaded, which is how class_of tells a loaded type without loading it.
mdMethodDef probe_method(IMetaDataImport* metadata, mdTypeDef type) {
  EnumCloser methods{metadata};
  mdMethodDef batch[64];
  ULONG count = 0;
  while (metadata->EnumMethods(&methods.handle, type, batch, 64, &count) == S_OK && count > 0) {
    for (ULONG i = 0; i < count && i < 64; ++i) {
      mdTypeDef owner = 0;
      ULONG length = 0, sig_size = 0, rva = 0;
      DWORD attributes = 0, impl_flags = 0;
      const BYTE* sig = nullptr;
      if (!succeeded(metadata->GetMethodProps(batch[i], &owner, nullptr, 0, &length, &attributes, &sig, &sig_size,
                                              &rva, &impl_flags)))
        continue;
      if (sig && sig_size > 0 && !(sig[0] & kCallConvGeneric)) return batch[i];
    }
  }
  return 0;
}

}  // namespace

bool RuntimeStatics::module_types(uint64_t module, std::vector<StaticTypeInfo>& out) {
  out.clear();
  LPCBYTE base = nullptr;
  ULONG name_length = 0;
  AssemblyID assembly = 0;
  AppDomainID domain = 0;
  if (!succeeded(info_->GetModuleInfo(module, &base, 0, &name_length, nullptr, &assembly)) || assembly == 0) return false;
  if (!succeeded(info_->GetAssemblyInfo(assembly, 0, nullptr, nullptr, &domain, nullptr)) || domain == 0) return false;
  app_domains_[module] = domain;

  Released<IUnknown> unknown;
  Released<IMetaDataImport> metadata;
  if (info_->GetModuleMetaData(module, ofRead, IID_IMetaDataImport, &unknown.p) != S_OK || !unknown.p) return false;
  if (unknown.p->QueryInterface(IID_IMetaDataImport, reinterpret_cast<void**>(&metadata.p)) != S_OK || !metadata.p)
    return false;
  IMetaDataImport* md = metadata.p;

  EnumCloser types{md};
  mdTypeDef type_batch[256];
  ULONG type_count = 0;
  while (md->EnumTypeDefs(&types.handle, type_batch, 256, &type_count) == S_OK && type_count > 0) {
    for (ULONG t = 0; t < type_count && t < 256; ++t) {
      const mdTypeDef type = type_batch[t];
      StaticTypeInfo info;
      info.token = type;
      std::string type_name;
      bool generic = false;
      EnumCloser fields{md};
      mdFieldDef field_batch[128];
      ULONG field_count = 0;
      while (md->EnumFields(&fields.handle, type, field_batch, 128, &field_count) == S_OK && field_count > 0) {
        for (ULONG f = 0; f < field_count && f < 128; ++f) {
          WCHAR buffer[kNameCapacity];
          ULONG length = 0, sig_size = 0, constant_length = 0;
          DWORD attributes = 0, constant_type = 0;
          const BYTE* sig = nullptr;
          const void* constant = nullptr;
          mdTypeDef owner = 0;
          if (!succeeded(md->GetFieldProps(field_batch[f], &owner, buffer, kNameCapacity, &length, &attributes, &sig,
                                           &sig_size, &constant_type, &constant, &constant_length)))
            continue;
          if (!is_reference_static(attributes, sig, sig_size)) continue;
          if (type_name.empty()) {
            std::vector<std::string> chain;
            generic = !plain_type_chain(md, type, chain);  // generic: statics per instantiation
            if (generic) break;
            type_name = assemble_type_name(chain, {});
          }
          info.fields.push_back(StaticFieldInfo{field_batch[f], type_name + "." + name_of(buffer, length)});
        }
        if (generic) break;
      }
      if (info.fields.empty()) continue;
      info.probe_method = probe_method(md, type);
      out.push_back(std::move(info));
    }
  }
  return true;
}

Lookup RuntimeStatics::class_of(uint64_t module, const StaticTypeInfo& type, uint64_t& class_id) {
  class_id = 0;
  // A type without a plain method (a static class with fields only) cannot be told loaded
  // without GetClassFromToken, which loads it: such statics are not named (docs/shim.md).
  if (type.probe_method == 0) return Lookup::Never;
  FunctionID function = 0;
  HRESULT hr = info_->GetFunctionFromToken(module, type.probe_method, &function);
  // E_INVALIDARG: no MethodDesc for the token yet, i.e. the type is not loaded.
  if (hr == kInvalidArg || hr == CORPROF_E_DATAINCOMPLETE) return Lookup::NotYet;
  if (!succeeded(hr) || function == 0) return Lookup::Never;
  ClassID owner = 0;
  ModuleID owner_module = 0;
  mdToken token = 0;
  hr = info_->GetFunctionInfo(function, &owner, &owner_module, &token);
  if (hr == CORPROF_E_DATAINCOMPLETE) return Lookup::NotYet;
  // ClassID 0: the type is generic (its statics are per instantiation).
  if (!succeeded(hr) || owner == 0) return Lookup::Never;
  class_id = owner;
  return Lookup::Found;
}

Lookup RuntimeStatics::static_address(uint64_t module, uint64_t class_id, uint32_t field, uint64_t& address) {
  address = 0;
  auto domain = app_domains_.find(module);
  if (domain == app_domains_.end()) return Lookup::Never;
  COR_PRF_STATIC_TYPE kind = 0;
  HRESULT hr = info_->GetStaticFieldInfo(class_id, field, &kind);
  if (hr == CORPROF_E_DATAINCOMPLETE) return Lookup::NotYet;
  if (!succeeded(hr)) return Lookup::Never;
  // Thread statics have one slot per thread, RVA statics no reference: not named.
  if (kind != COR_PRF_FIELD_APP_DOMAIN_STATIC) return Lookup::Never;
  void* where = nullptr;
  hr = info_->GetAppDomainStaticAddress(class_id, field, domain->second, &where);
  // DATAINCOMPLETE: the class is not initialised yet (its statics have no storage).
  if (hr == CORPROF_E_DATAINCOMPLETE) return Lookup::NotYet;
  if (!succeeded(hr) || !where) return Lookup::Never;
  address = reinterpret_cast<uint64_t>(where);
  return Lookup::Found;
}

HRESULT RuntimeStatics::enumerate_modules(std::vector<uint64_t>& out) {
  Released<ICorProfilerModuleEnum> modules;
  HRESULT hr = info_->EnumModules(&modules.p);
  if (!succeeded(hr)) return hr;
  if (!modules.p) return E_FAIL;
  ModuleID batch[64];
  ULONG fetched = 0;
  for (;;) {
    hr = modules.p->Next(64, batch, &fetched);
    if (!succeeded(hr)) return hr;
    for (ULONG i = 0; i < fetched && i < 64; ++i) out.push_back(batch[i]);
    if (hr != S_OK || fetched == 0) return S_OK;
  }
}

}  // namespace gcsnap::shim
