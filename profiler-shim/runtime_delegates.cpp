// RuntimeInfoQueries' delegate queries: where System.Delegate keeps its code pointers, and
// which method a code pointer (or the precode stub in front of a method) belongs to
// (format-spec.md §6.22; docs/shim.md "Delegate targets"). Non-triggering calls only
// (GetClassIDInfo2, GetClassLayout, GetFunctionFromIP, metadata), as they run inside the GC.
#include <cstring>
#include <initializer_list>
#include <vector>

#include "runtime_queries.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;
constexpr int kMaxParents = 64;
constexpr ULONG kNameCapacity = 256;

std::string metadata_name(const WCHAR* name, ULONG length) {
  size_t n = length <= kNameCapacity ? length : kNameCapacity;
  while (n > 0 && name[n - 1] == 0) --n;
  return utf16_to_utf8(name, n);
}

uint64_t load_u64(uint64_t address) {
  uint64_t value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(value));
  return value;
}

int32_t load_i32(uint64_t address) {
  int32_t value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(value));
  return value;
}

bool bytes_are(uint64_t address, std::initializer_list<uint8_t> want) {
  const auto* p = reinterpret_cast<const uint8_t*>(address);
  for (uint8_t b : want)
    if (*p++ != b) return false;
  return true;
}

}  // namespace

bool RuntimeInfoQueries::delegate_code_offsets(uint64_t class_id, uint32_t& method_ptr, uint32_t& method_ptr_aux) {
  ClassID current = class_id;
  for (int level = 0; current != 0 && level < kMaxParents; ++level) {
    ModuleID module = 0;
    mdTypeDef token = 0;
    ClassID parent = 0;
    ULONG32 arg_count = 0;
    if (!succeeded(info_->GetClassIDInfo2(current, &module, &token, &parent, 0, &arg_count, nullptr))) return false;
    IMetaDataImport* metadata = module != 0 ? metadata_for(module) : nullptr;
    if (!metadata) return false;
    WCHAR name[kNameCapacity];
    ULONG length = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (!succeeded(metadata->GetTypeDefProps(token, name, kNameCapacity, &length, &flags, &extends))) return false;
    if (metadata_name(name, length) != "System.Delegate") {
      current = parent;
      continue;
    }
    ULONG count = 0, class_size = 0;
    if (!succeeded(info_->GetClassLayout(current, nullptr, 0, &count, &class_size)) || count == 0) return false;
    std::vector<COR_FIELD_OFFSET> offsets(count);
    if (!succeeded(info_->GetClassLayout(current, offsets.data(), count, &count, &class_size))) return false;
    method_ptr = method_ptr_aux = 0;
    for (ULONG k = 0; k < count && k < offsets.size(); ++k) {
      mdTypeDef owner = 0;
      DWORD attributes = 0, constant_type = 0;
      const BYTE* sig = nullptr;
      ULONG sig_size = 0, constant_length = 0;
      const void* constant = nullptr;
      if (!succeeded(metadata->GetFieldProps(offsets[k].ridOfField, &owner, name, kNameCapacity, &length, &attributes,
                                             &sig, &sig_size, &constant_type, &constant, &constant_length)))
        continue;
      const std::string field = metadata_name(name, length);
      // Offsets count from the object's start (runtime_layouts.cpp); word-aligned pointers.
      if (field == "_methodPtr") method_ptr = offsets[k].ulOffset;
      if (field == "_methodPtrAux") method_ptr_aux = offsets[k].ulOffset;
    }
    return method_ptr != 0 && method_ptr_aux != 0 && method_ptr % 8 == 0 && method_ptr_aux % 8 == 0;
  }
  return false;
}

// A delegate's code pointer is the method's code, or (not yet compiled, or versionable under
// tiering) the precode stub in front of it. The x64 stubs of .NET 7 and later load the
// MethodDesc, which is the FunctionID, from their data page (dotnet/runtime
// src/coreclr/vm/amd64/thunktemplates.S): StubPrecode "mov r10, [rip+d]; jmp [rip+d]",
// FixupPrecode "jmp [rip+d]; mov r10, [rip+d]; jmp [rip+d]", whose first jump's slot holds
// the code once compiled. Other bytes: no method.
uint64_t RuntimeInfoQueries::function_at(uint64_t code) {
  FunctionID function = 0;
  if (succeeded(info_->GetFunctionFromIP(reinterpret_cast<LPCBYTE>(code), &function)) && function != 0)
    return function;
#if defined(__x86_64__) || defined(_M_X64)
  uint64_t mov = 0;  // address of a "mov r10, [rip+d]"
  if (bytes_are(code, {0x4C, 0x8B, 0x15}))
    mov = code;
  else if (bytes_are(code, {0xFF, 0x25}) && bytes_are(code + 6, {0x4C, 0x8B, 0x15}))
    mov = code + 6;
  if (mov == 0) return 0;
  if (mov != code) {  // FixupPrecode: its target once the method is compiled
    const uint64_t target = load_u64(code + 6 + static_cast<int64_t>(load_i32(code + 2)));
    if (target != 0 && succeeded(info_->GetFunctionFromIP(reinterpret_cast<LPCBYTE>(target), &function)) &&
        function != 0)
      return function;
  }
  const uint64_t method_desc = load_u64(mov + 7 + static_cast<int64_t>(load_i32(mov + 3)));
  // Checked through the runtime: a FunctionID it knows has a module and a token.
  ClassID class_id = 0;
  ModuleID module = 0;
  mdToken token = 0;
  if (method_desc != 0 && succeeded(info_->GetFunctionInfo(method_desc, &class_id, &module, &token)) && module != 0)
    return method_desc;
#endif
  return 0;
}

}  // namespace gcsnap::shim
