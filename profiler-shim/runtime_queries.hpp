#pragma once
// RuntimeQueries over ICorProfilerInfo: type names, object sizes and method names, using
// only calls that cannot trigger a GC, so they are legal inside GC callbacks (dotnet/runtime
// v8.0.0, src/coreclr/vm/proftoeeinterfaceimpl.cpp: methods without kP2EETriggers).

#include <string>
#include <unordered_map>
#include <vector>

#include "cor_profiler_abi.hpp"
#include "recorder.hpp"

namespace gcsnap::shim {

class RuntimeInfoQueries final : public RuntimeQueries {
 public:
  explicit RuntimeInfoQueries(com::ICorProfilerInfo4* info) : info_(info) {}

  TypeName type_name(uint64_t class_id) override;
  uint64_t object_size(uint64_t object_id) override;
  uint64_t class_of(uint64_t object_id) override;
  uint32_t component_count(uint64_t object_id) override;
  std::string method_name(uint64_t function_id) override;
  /// A function's module file name, declaring type (named as types are) and method name.
  /// False when the runtime cannot say. Not thread-safe (caches), as the rest of the class.
  bool function_parts(uint64_t function_id, std::string& module, std::string& type, std::string& method);
  bool type_layout(uint64_t class_id, uint64_t object_id, OwnedLayout& out) override;
  bool delegate_code_offsets(uint64_t class_id, uint32_t& method_ptr, uint32_t& method_ptr_aux) override;
  uint64_t function_at(uint64_t code) override;
  const uint64_t* object_words(uint64_t object_id) override { return reinterpret_cast<const uint64_t*>(object_id); }
  bool find_field(uint64_t class_id, const char* name, ValueField& out) override;

 private:
  bool append_class_name(com::ClassID class_id, std::string& out, int depth);
  /// The metadata names of TOKEN and its enclosing types, outermost first.
  bool typedef_chain(com::IMetaDataImport* metadata, com::mdTypeDef token, std::vector<std::string>& chain, int depth);
  /// The reference and struct fields of CLASS_ID and its parents, at offset + ADJUST, named
  /// PREFIX + name; a field typed by a generic parameter that is a struct in this
  /// instantiation is embedded, and its own fields follow as "Field.Inner" (DEPTH levels).
  bool append_class_fields(com::ClassID class_id, std::vector<OwnedField>& out, uint32_t adjust,
                           const std::string& prefix = {}, int depth = 0);
  /// A field CLASS_ID itself declares (not a parent's): GetClassLayout's offset, counted from
  /// the object's start (runtime_layouts.cpp), and the metadata's attributes, signature and name.
  struct DeclaredField {
    uint32_t offset = 0;
    uint32_t attributes = 0;
    const uint8_t* sig = nullptr;
    uint32_t sig_size = 0;
    std::string name;
  };
  /// The fields of CLASS_ID as its module's METADATA names them (those it cannot name are left
  /// out); false when the runtime cannot give the layout.
  bool declared_fields(com::ClassID class_id, com::IMetaDataImport* metadata, std::vector<DeclaredField>& out);
  /// Whether CLASS_ID is a value type (its parent is System.ValueType or System.Enum).
  bool is_value_type(com::ClassID class_id);
  bool array_layout(com::ClassID class_id, uint64_t object_id, OwnedLayout& out);
  com::IMetaDataImport* metadata_for(com::ModuleID module);
  const std::string& module_name(com::ModuleID module);

  com::ICorProfilerInfo4* info_;
  std::unordered_map<com::ModuleID, com::IMetaDataImport*> metadata_;  ///< kept for the process life
  std::unordered_map<com::ModuleID, std::string> module_names_;
  std::unordered_map<com::ClassID, std::string> class_names_;          ///< generic args, array elements
};

/// TOKEN's metadata name (namespace-qualified, without enclosing types); false when unknown.
bool typedef_name(com::IMetaDataImport* metadata, com::mdTypeDef token, std::string& out);

/// Convert N UTF-16 code units to UTF-8 (unpaired surrogates become U+FFFD).
std::string utf16_to_utf8(const char16_t* text, size_t n);

}  // namespace gcsnap::shim
