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
  static constexpr int kMaxClassLevels = 64;  ///< a class and its parents, at most
  static constexpr com::ULONG32 kMaxTypeArgs = 32;
  /// One class of a walk up from a class through its parents (walk_up_classes).
  struct ClassLevel {
    com::ClassID class_id = 0;
    com::IMetaDataImport* metadata = nullptr;  ///< its module's; never null
    com::mdTypeDef token = 0;
    com::ULONG32 arg_count = 0;
    const com::ClassID* args = nullptr;  ///< its type arguments, with TYPE_ARGS only
  };
  /// What a visit of walk_up_classes says: go on to the parent, or end the walk.
  enum class ClassWalk : uint8_t { Parent, Found, Failed };
  /// Call VISIT(const ClassLevel&) on CLASS_ID and then its parents, nearest first, until it
  /// says Found or Failed, and return that; Parent when the walk passed the last parent (or
  /// kMaxClassLevels), Failed when the runtime cannot describe a class or give its module's
  /// metadata. TYPE_ARGS: ask for each class's type arguments too.
  template <typename Visit>
  ClassWalk walk_up_classes(com::ClassID class_id, bool type_args, Visit&& visit);
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

template <typename Visit>
RuntimeInfoQueries::ClassWalk RuntimeInfoQueries::walk_up_classes(com::ClassID class_id, bool type_args,
                                                                  Visit&& visit) {
  com::ClassID current = class_id;
  for (int level = 0; current != 0 && level < kMaxClassLevels; ++level) {
    com::ModuleID module = 0;
    com::ClassID parent = 0;
    com::ClassID args[kMaxTypeArgs];
    ClassLevel c{current, nullptr, 0, 0, type_args ? args : nullptr};
    if (!com::succeeded(info_->GetClassIDInfo2(current, &module, &c.token, &parent, type_args ? kMaxTypeArgs : 0,
                                               &c.arg_count, type_args ? args : nullptr)))
      return ClassWalk::Failed;
    c.metadata = module != 0 ? metadata_for(module) : nullptr;
    if (!c.metadata) return ClassWalk::Failed;
    const ClassWalk step = visit(static_cast<const ClassLevel&>(c));
    if (step != ClassWalk::Parent) return step;
    current = parent;
  }
  return ClassWalk::Parent;
}

/// TOKEN's metadata name (namespace-qualified, without enclosing types); false when unknown.
bool typedef_name(com::IMetaDataImport* metadata, com::mdTypeDef token, std::string& out);

/// Convert N UTF-16 code units to UTF-8 (unpaired surrogates become U+FFFD).
std::string utf16_to_utf8(const char16_t* text, size_t n);

}  // namespace gcsnap::shim
