// Which app a recording is of (gcsnap/leak_suspects.hpp: identify_app, is_same_app): its own
// modules and namespaces, framework ones left out, so `leaks` over several recordings can
// refuse to join two different apps.

#include <algorithm>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/leak_suspects.hpp"

namespace gcsnap {

namespace {

bool is_framework_module(std::string_view module) {
  return module.starts_with("System.") || module.starts_with("Microsoft.") || module == "mscorlib.dll" ||
         module == "netstandard.dll" || module == "System.dll";
}

bool is_framework_namespace(std::string_view ns) {
  for (std::string_view root : {"System", "Microsoft", "Internal", "Interop"})
    if (ns == root || (ns.starts_with(root) && ns.size() > root.size() && ns[root.size()] == '.')) return true;
  return false;
}

// The namespace of a type's own name: generic arguments, array ranks and nesting dropped
// ("A.B.Outer`1+Inner<X>[]" -> "A.B"); nullopt for compiler-generated and framework types.
std::optional<std::string_view> app_namespace(std::string_view name) {
  name = name.substr(0, std::min(name.find('<'), name.find('[')));
  name = name.substr(0, name.find('+'));
  if (name.empty()) return std::nullopt;
  const size_t dot = name.rfind('.');
  const std::string_view ns = dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
  if (is_framework_namespace(ns)) return std::nullopt;
  return ns;
}

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

bool overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) noexcept {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) return true;
    if (a[i] < b[j]) ++i;
    else ++j;
  }
  return false;
}

}  // namespace

Result<AppIdentity> identify_app(const Recording& recording) try {
  if (recording.gcs().empty()) return make_error(ErrorCode::NotFound, "the recording has no GC");
  auto names = recording.read_names(recording.gcs().size() - 1);
  if (!names) return names.error();
  AppIdentity app;
  for (const TypeRecord& t : names->types()) {
    std::string_view module = t.module;
    if (const size_t slash = module.find_last_of("/\\"); slash != std::string_view::npos) module.remove_prefix(slash + 1);
    if (!module.empty() && !is_framework_module(module)) app.modules.emplace_back(module);
    if (const auto ns = app_namespace(t.name)) app.namespaces.emplace_back(*ns);
  }
  sort_unique(app.modules);
  sort_unique(app.namespaces);
  return app;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "identifying the app of a recording");
}

bool is_same_app(const AppIdentity& a, const AppIdentity& b) noexcept {
  const bool a_empty = a.modules.empty() && a.namespaces.empty();
  const bool b_empty = b.modules.empty() && b.namespaces.empty();
  if (a_empty || b_empty) return a_empty && b_empty;
  return overlap(a.modules, b.modules) || overlap(a.namespaces, b.namespaces);
}

}  // namespace gcsnap
