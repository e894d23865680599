#include "runtime_queries.hpp"

#include <cstdio>

#include "type_name_format.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;
constexpr int kMaxDepth = 32;
constexpr ULONG kNameCapacity = 1024;
constexpr ULONG32 kMaxMethodArgs = 32;  ///< a generic method's type arguments named (more: none named)

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

const char* primitive_name(CorElementType type) {
  switch (type) {
    case 0x2: return "System.Boolean";
    case 0x3: return "System.Char";
    case 0x4: return "System.SByte";
    case 0x5: return "System.Byte";
    case 0x6: return "System.Int16";
    case 0x7: return "System.UInt16";
    case 0x8: return "System.Int32";
    case 0x9: return "System.UInt32";
    case 0xA: return "System.Int64";
    case 0xB: return "System.UInt64";
    case 0xC: return "System.Single";
    case 0xD: return "System.Double";
    case 0xE: return "System.String";
    case 0x18: return "System.IntPtr";
    case 0x19: return "System.UIntPtr";
    case 0x1C: return "System.Object";
    default: return nullptr;
  }
}

}  // namespace

std::string utf16_to_utf8(const char16_t* text, size_t n) {
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t c = text[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && text[i + 1] >= 0xDC00 && text[i + 1] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (text[i + 1] - 0xDC00);
      ++i;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      c = 0xFFFD;
    }
    append_utf8(out, c);
  }
  return out;
}

IMetaDataImport* RuntimeInfoQueries::metadata_for(ModuleID module) {
  auto found = metadata_.find(module);
  if (found != metadata_.end()) return found->second;
  IUnknown* unknown = nullptr;
  IMetaDataImport* metadata = nullptr;
  if (info_->GetModuleMetaData(module, ofRead, IID_IMetaDataImport, &unknown) == S_OK && unknown) {
    if (unknown->QueryInterface(IID_IMetaDataImport, reinterpret_cast<void**>(&metadata)) != S_OK) metadata = nullptr;
    unknown->Release();
  }
  metadata_.emplace(module, metadata);
  return metadata;
}

const std::string& RuntimeInfoQueries::module_name(ModuleID module) {
  auto found = module_names_.find(module);
  if (found != module_names_.end()) return found->second;
  WCHAR buffer[kNameCapacity];
  ULONG length = 0;
  LPCBYTE base = nullptr;
  AssemblyID assembly = 0;
  std::string name;
  if (succeeded(info_->GetModuleInfo(module, &base, kNameCapacity, &length, buffer, &assembly)) && length > 0) {
    size_t n = length <= kNameCapacity ? length : kNameCapacity;
    while (n > 0 && buffer[n - 1] == 0) --n;
    name = utf16_to_utf8(buffer, n);
    size_t slash = name.find_last_of('/');
    if (slash != std::string::npos) name.erase(0, slash + 1);
  }
  return module_names_.emplace(module, std::move(name)).first->second;
}

bool typedef_name(IMetaDataImport* metadata, mdTypeDef token, std::string& out) {
  WCHAR buffer[kNameCapacity];
  ULONG length = 0;
  DWORD flags = 0;
  mdToken extends = 0;
  if (!succeeded(metadata->GetTypeDefProps(token, buffer, kNameCapacity, &length, &flags, &extends))) return false;
  size_t n = length <= kNameCapacity ? length : kNameCapacity;
  while (n > 0 && buffer[n - 1] == 0) --n;
  out = utf16_to_utf8(buffer, n);
  return true;
}

bool RuntimeInfoQueries::typedef_chain(IMetaDataImport* metadata, mdTypeDef token, std::vector<std::string>& chain,
                                       int depth) {
  if (depth > kMaxDepth) return false;
  std::string name;
  if (!typedef_name(metadata, token, name)) return false;
  mdTypeDef enclosing = 0;
  // Nested types carry no namespace: the chain starts at the outermost enclosing type.
  if (metadata->GetNestedClassProps(token, &enclosing) == S_OK && enclosing != 0 && enclosing != token) {
    if (!typedef_chain(metadata, enclosing, chain, depth + 1)) return false;
  }
  chain.push_back(std::move(name));
  return true;
}

bool RuntimeInfoQueries::append_class_name(ClassID class_id, std::string& out, int depth) {
  if (depth > kMaxDepth || class_id == 0) return false;
  auto cached = class_names_.find(class_id);
  if (cached != class_names_.end()) {
    out += cached->second;
    return true;
  }
  std::string name;
  bool ok = false;
  CorElementType element_type = 0;
  ClassID element = 0;
  ULONG rank = 0;
  if (info_->IsArrayClass(class_id, &element_type, &element, &rank) == S_OK) {
    if (element != 0) {
      ok = append_class_name(element, name, depth + 1);
    } else if (const char* primitive = primitive_name(element_type)) {
      name = primitive;
      ok = true;
    }
    name += '[';
    for (ULONG i = 1; i < rank; ++i) name += ',';
    name += ']';
  } else {
    ModuleID module = 0;
    mdTypeDef token = 0;
    ClassID parent = 0;
    ULONG32 arg_count = 0;
    ClassID args[32];
    HRESULT hr = info_->GetClassIDInfo2(class_id, &module, &token, &parent, 32, &arg_count, args);
    if (!succeeded(hr) || arg_count > 32) {
      arg_count = 0;
      hr = info_->GetClassIDInfo(class_id, &module, &token);
    }
    IMetaDataImport* metadata = succeeded(hr) && module != 0 ? metadata_for(module) : nullptr;
    std::vector<std::string> chain;
    if (metadata && typedef_chain(metadata, token, chain, depth + 1)) {
      ok = true;
      // The runtime tools' form: each name of the nesting chain takes its own arguments
      // ("Dictionary<K,V>+Entry", "Outer<A>+Inner<B>"), not all of them at the end.
      std::vector<std::string> arg_names(arg_count);
      for (ULONG32 i = 0; i < arg_count && i < 32; ++i) {
        if (!append_class_name(args[i], arg_names[i], depth + 1)) {
          arg_names[i] = "?";
          ok = false;
        }
      }
      name = assemble_type_name(chain, arg_names);
    }
  }
  if (!ok) return false;
  out += name;
  class_names_.emplace(class_id, std::move(name));
  return true;
}

RuntimeQueries::TypeName RuntimeInfoQueries::type_name(uint64_t class_id) {
  TypeName result;
  result.resolved = append_class_name(class_id, result.name, 0);
  if (!result.resolved) result.name.clear();
  ClassID element = class_id;
  CorElementType element_type = 0;
  ULONG rank = 0;
  // Only arrays and strings have components (a size that varies per object); the recorder
  // still checks every size rule it learns against GetObjectSize2 (class_cache.hpp).
  if (info_->IsArrayClass(class_id, &element_type, &element, &rank) == S_OK) {
    result.size_kind = SizeKind::Variable;
  } else if (result.resolved) {
    result.size_kind = result.name == "System.String" ? SizeKind::Variable : SizeKind::Fixed;
  }
  element = class_id;
  // An array's module is its element type's module.
  for (int i = 0; i < 8 && info_->IsArrayClass(element, &element_type, &element, &rank) == S_OK && element; ++i) {
  }
  ModuleID module = 0;
  mdTypeDef token = 0;
  if (element != 0 && succeeded(info_->GetClassIDInfo(element, &module, &token)) && module != 0) {
    result.module = module_name(module);
  }
  return result;
}

uint64_t RuntimeInfoQueries::object_size(uint64_t object_id) {
  SIZE_T size = 0;
  return succeeded(info_->GetObjectSize2(object_id, &size)) ? size : 0;
}

uint32_t RuntimeInfoQueries::component_count(uint64_t object_id) {
  // ObjectID is the object's address, and the runtime is suspended while it walks the heap.
  return shim::component_count(object_id);
}

uint64_t RuntimeInfoQueries::class_of(uint64_t object_id) {
  ClassID class_id = 0;
  return succeeded(info_->GetClassFromObject(object_id, &class_id)) ? class_id : 0;
}

std::string RuntimeInfoQueries::method_name(uint64_t function_id) {
  std::string module, type, method;
  if (!function_parts(function_id, module, type, method)) return {};
  return type.empty() ? method : type + "." + method;
}

bool RuntimeInfoQueries::function_parts(uint64_t function_id, std::string& module_out, std::string& type,
                                        std::string& method) {
  ClassID class_id = 0;
  ModuleID module = 0;
  mdToken token = 0;
  ULONG32 arg_count = 0;
  ClassID args[kMaxMethodArgs];
  // Without a frame the runtime gives the exact class and method arguments of code that is not
  // shared; code shared by reference-type instantiations gets its canonical form (System.__Canon)
  // or no class, which then is named from metadata without arguments.
  HRESULT hr = info_->GetFunctionInfo2(function_id, 0, &class_id, &module, &token, kMaxMethodArgs, &arg_count, args);
  if (!succeeded(hr) || arg_count > kMaxMethodArgs) {
    arg_count = 0;
    hr = info_->GetFunctionInfo(function_id, &class_id, &module, &token);
  }
  if (!succeeded(hr) || module == 0) return false;
  IMetaDataImport* metadata = metadata_for(module);
  if (!metadata) return false;
  WCHAR buffer[kNameCapacity];
  ULONG length = 0;
  mdTypeDef owner = 0;
  DWORD attributes = 0, impl_flags = 0;
  const BYTE* signature = nullptr;
  ULONG signature_size = 0, rva = 0;
  if (!succeeded(metadata->GetMethodProps(token, &owner, buffer, kNameCapacity, &length, &attributes, &signature,
                                          &signature_size, &rva, &impl_flags))) {
    return false;
  }
  size_t n = length <= kNameCapacity ? length : kNameCapacity;
  while (n > 0 && buffer[n - 1] == 0) --n;
  type.clear();
  if (!(class_id != 0 && append_class_name(class_id, type, 0))) {
    type.clear();
    std::vector<std::string> chain;
    if (owner != 0 && typedef_chain(metadata, owner, chain, 0)) type = assemble_type_name(chain, {});
  }
  std::vector<std::string> arg_names(arg_count);
  for (ULONG32 i = 0; i < arg_count; ++i)
    if (!append_class_name(args[i], arg_names[i], 1)) arg_names[i] = "?";
  method = assemble_method_name(utf16_to_utf8(buffer, n), arg_names);
  module_out = module_name(module);
  return true;
}

}  // namespace gcsnap::shim
