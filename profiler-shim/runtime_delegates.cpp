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
  const ClassWalk walk = walk_up_classes(class_id, false, [&](const ClassLevel& c) {
    std::string type;
    if (!typedef_name(c.metadata, c.token, type)) return ClassWalk::Failed;
    if (type != "System.Delegate") return ClassWalk::Parent;
    std::vector<DeclaredField> fields;
    if (!declared_fields(c.class_id, c.metadata, fields) || fields.empty()) return ClassWalk::Failed;
    method_ptr = method_ptr_aux = 0;
    for (const DeclaredField& field : fields) {
      // Offsets count from the object's start (runtime_layouts.cpp); word-aligned pointers.
      if (field.name == "_methodPtr") method_ptr = field.offset;
      if (field.name == "_methodPtrAux") method_ptr_aux = field.offset;
    }
    const bool aligned = method_ptr != 0 && method_ptr_aux != 0 && method_ptr % 8 == 0 && method_ptr_aux % 8 == 0;
    return aligned ? ClassWalk::Found : ClassWalk::Failed;
  });
  return walk == ClassWalk::Found;
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
