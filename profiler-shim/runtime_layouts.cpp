// RuntimeInfoQueries::type_layout: where a type keeps its references, from GetClassLayout,
// the metadata's field names and signatures, and (arrays) GetArrayObjectInfo. All of these
// are non-triggering, so they may run inside the GC (dotnet/runtime v8.0.0,
// src/coreclr/vm/proftoeeinterfaceimpl.cpp: no kP2EETriggers); each type is resolved once.
#include <algorithm>
#include <vector>

#include "field_signature.hpp"
#include "gcsnap/field_layout.hpp"
#include "runtime_queries.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;
constexpr int kMaxStructDepth = 4;  ///< structs embedded through generic parameters, nested
constexpr ULONG kNameCapacity = 1024;
// Added to GetClassLayout offsets of a class so they count from the object's start (checked on
// .NET 10: see docs/shim.md "Field names").
constexpr uint32_t kLayoutAdjust = 0;

bool is_reference_element(CorElementType type) {
  return type == 0x0e || type == 0x12 || type == 0x14 || type == 0x1c || type == 0x1d || type == 0x15;
}

}  // namespace

bool RuntimeInfoQueries::is_value_type(ClassID class_id) {
  ModuleID module = 0;
  mdTypeDef token = 0;
  ClassID parent = 0, grandparent = 0;
  ULONG32 arg_count = 0;
  if (!succeeded(info_->GetClassIDInfo2(class_id, &module, &token, &parent, 0, &arg_count, nullptr)) || parent == 0)
    return false;
  if (!succeeded(info_->GetClassIDInfo2(parent, &module, &token, &grandparent, 0, &arg_count, nullptr))) return false;
  IMetaDataImport* metadata = module != 0 ? metadata_for(module) : nullptr;
  std::string text;
  if (!metadata || !typedef_name(metadata, token, text)) return false;
  return text == "System.ValueType" || text == "System.Enum";
}

bool RuntimeInfoQueries::declared_fields(ClassID class_id, IMetaDataImport* metadata, std::vector<DeclaredField>& out) {
  out.clear();
  ULONG count = 0, class_size = 0;
  if (!succeeded(info_->GetClassLayout(class_id, nullptr, 0, &count, &class_size))) return false;
  std::vector<COR_FIELD_OFFSET> offsets(count);
  if (count > 0 && !succeeded(info_->GetClassLayout(class_id, offsets.data(), count, &count, &class_size))) return false;
  for (ULONG k = 0; k < count && k < offsets.size(); ++k) {
    WCHAR name[kNameCapacity];
    ULONG length = 0;
    DWORD attributes = 0, constant_type = 0;
    const BYTE* sig = nullptr;
    ULONG sig_size = 0, constant_length = 0;
    const void* constant = nullptr;
    mdTypeDef owner = 0;
    if (!succeeded(metadata->GetFieldProps(offsets[k].ridOfField, &owner, name, kNameCapacity, &length, &attributes,
                                           &sig, &sig_size, &constant_type, &constant, &constant_length)))
      continue;
    size_t n = length <= kNameCapacity ? length : kNameCapacity;
    while (n > 0 && name[n - 1] == 0) --n;
    out.push_back(DeclaredField{offsets[k].ulOffset, attributes, sig, sig_size, utf16_to_utf8(name, n)});
  }
  return true;
}

bool RuntimeInfoQueries::append_class_fields(ClassID class_id, std::vector<OwnedField>& out, uint32_t adjust,
                                             const std::string& prefix, int depth) {
  const ClassWalk walk = walk_up_classes(class_id, true, [&](const ClassLevel& c) {
    std::vector<DeclaredField> fields;
    if (!declared_fields(c.class_id, c.metadata, fields)) return ClassWalk::Failed;
    for (const DeclaredField& field : fields) {
      uint8_t flags = field_signature_flags(field.sig, field.sig_size);
      if ((field.attributes & field_attributes::kStatic) || flags == 0) continue;
      const uint32_t offset = field.offset + adjust;
      std::string field_name = prefix + field.name;
      // `T StateMachine` in AsyncStateMachineBox<TResult, TStateMachine>: a struct here (the
      // compiler's state machine in a release build), so its fields are named through it.
      const int parameter = field_signature_type_parameter(field.sig, field.sig_size);
      const ClassID argument = parameter >= 0 && static_cast<ULONG32>(parameter) < c.arg_count &&
                                       parameter < static_cast<int>(kMaxTypeArgs)
                                   ? c.args[parameter]
                                   : 0;
      if (argument != 0 && is_value_type(argument)) {
        flags = field_flags::kStruct;
        if (depth < kMaxStructDepth) append_class_fields(argument, out, offset, field_name + ".", depth + 1);
      }
      out.push_back(OwnedField{offset, flags, std::move(field_name)});
    }
    return ClassWalk::Parent;
  });
  return walk != ClassWalk::Failed;
}

bool RuntimeInfoQueries::array_layout(ClassID class_id, uint64_t object_id, OwnedLayout& out) {
  CorElementType element_type = 0;
  ClassID element = 0;
  ULONG rank = 0;
  if (info_->IsArrayClass(class_id, &element_type, &element, &rank) != S_OK || rank == 0 || rank > 32) return false;
  ULONG32 sizes[32];
  int lower_bounds[32];
  BYTE* data = nullptr;
  if (!succeeded(info_->GetArrayObjectInfo(object_id, rank, sizes, lower_bounds, &data)) || !data) return false;
  const uint64_t data_offset = reinterpret_cast<uint64_t>(data) - object_id;
  if (data_offset > 0xFFFF) return false;
  out.data_offset = static_cast<uint32_t>(data_offset);
  if (is_reference_element(element_type)) {
    out.kind = LayoutKind::ReferenceArray;
    out.element_size = 8;
    return true;
  }
  if (element_type != 0x11 || element == 0) return false;  // primitives: no references to name
  ULONG count = 0, struct_size = 0;
  if (!succeeded(info_->GetClassLayout(element, nullptr, 0, &count, &struct_size)) || struct_size == 0) return false;
  out.kind = LayoutKind::StructArray;
  out.element_size = struct_size;
  // A struct's offsets are relative to its unboxed data already; unknown fields leave [i]+N.
  if (!append_class_fields(element, out.fields, 0)) out.fields.clear();
  return true;
}

bool RuntimeInfoQueries::type_layout(uint64_t class_id, uint64_t object_id, OwnedLayout& out) {
  out = OwnedLayout{};
  CorElementType element_type = 0;
  ClassID element = 0;
  ULONG rank = 0;
  if (info_->IsArrayClass(class_id, &element_type, &element, &rank) == S_OK)
    return object_id != 0 && array_layout(class_id, object_id, out);
  // Instance field offsets leave out the MethodTable pointer; slots count from the object's start.
  if (!append_class_fields(class_id, out.fields, kLayoutAdjust)) return false;
  std::stable_sort(out.fields.begin(), out.fields.end(),
                   [](const OwnedField& a, const OwnedField& b) { return a.offset < b.offset; });
  return true;
}

}  // namespace gcsnap::shim
