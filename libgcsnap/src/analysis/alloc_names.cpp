// The names allocation samples refer to: stacks, functions and sampled types declared up to a
// GC (format-spec.md §6.19-§6.21), and the allocation site of a stack.

#include <algorithm>
#include <cstdio>
#include <new>

#include "format/alloc_sections.hpp"
#include "format/format_constants.hpp"
#include "gcsnap/alloc_samples.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap {

namespace {

std::string hex_name(const char* prefix, uint64_t value) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "<%s 0x%llx>", prefix, static_cast<unsigned long long>(value));
  return buf;
}

template <typename T, typename Key>
Status sort_unique(std::vector<T>& v, Key key, const char* what) {
  std::sort(v.begin(), v.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
  for (size_t i = 1; i < v.size(); ++i)
    if (key(v[i]) == key(v[i - 1])) return make_error(ErrorCode::InconsistentData, what);
  return {};
}

template <typename T, typename Key>
const T* find_sorted(const std::vector<T>& v, uint64_t id, Key key) noexcept {
  auto it = std::lower_bound(v.begin(), v.end(), id, [&](const T& a, uint64_t x) { return key(a) < x; });
  return it != v.end() && key(*it) == id ? &*it : nullptr;
}

const auto stack_key = [](const AllocStack& s) { return uint64_t{s.id}; };
const auto function_key = [](const StackFunction& f) { return f.function_id; };
const auto type_key = [](const SampledType& t) { return t.class_id; };

// The runtime's and the framework's own assemblies: not where an app allocates.
bool is_runtime_module(std::string_view module) noexcept {
  const size_t slash = module.find_last_of("/\\");
  if (slash != std::string_view::npos) module = module.substr(slash + 1);
  return module.starts_with("System.") || module.starts_with("Microsoft.") || module == "mscorlib.dll" ||
         module == "netstandard.dll" || module.empty();
}

}  // namespace

Result<AllocNames> AllocNames::from_records(std::vector<AllocStack> stacks, std::vector<StackFunction> functions,
                                            std::vector<SampledType> types) try {
  AllocNames n;
  n.stacks_ = std::move(stacks);
  n.functions_ = std::move(functions);
  n.types_ = std::move(types);
  GCSNAP_RETURN_IF_ERROR(sort_unique(n.stacks_, stack_key, "allocation stack declared twice"));
  GCSNAP_RETURN_IF_ERROR(sort_unique(n.functions_, function_key, "stack function declared twice"));
  GCSNAP_RETURN_IF_ERROR(sort_unique(n.types_, type_key, "sampled type declared twice"));
  return n;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "allocation names");
}

Result<AllocNames> AllocNames::read(const Recording& recording, size_t gc_pos) try {
  if (gc_pos >= recording.gcs().size()) return make_error(ErrorCode::NotFound, "no such GC index");
  std::vector<AllocStack> stacks;
  std::vector<StackFunction> functions;
  std::vector<SampledType> types;
  using format::SectionType;
  for (size_t pos = 0; pos <= gc_pos; ++pos) {
    auto s = recording.read_sections(pos, static_cast<uint16_t>(SectionType::AllocStacks));
    if (!s) return s.status();
    for (const auto& p : *s) GCSNAP_RETURN_IF_ERROR(alloc_detail::decode_stacks(p, stacks));
    auto f = recording.read_sections(pos, static_cast<uint16_t>(SectionType::StackFunctions));
    if (!f) return f.status();
    for (const auto& p : *f) GCSNAP_RETURN_IF_ERROR(alloc_detail::decode_functions(p, kMaxNameBytes, functions));
    auto t = recording.read_sections(pos, static_cast<uint16_t>(SectionType::SampledTypes));
    if (!t) return t.status();
    for (const auto& p : *t) GCSNAP_RETURN_IF_ERROR(alloc_detail::decode_sampled_types(p, kMaxNameBytes, types));
  }
  auto names = from_records(std::move(stacks), std::move(functions), std::move(types));
  if (!names) return names.status();
  auto table = recording.read_names(gc_pos);
  if (!table) return table.status();
  for (const TypeRecord& t : table->types())
    if (t.class_id != 0) names->walk_types_.push_back(SampledType{t.class_id, std::string(t.name)});
  // A ClassID reused after an unload has two names; the first declared names it.
  std::stable_sort(names->walk_types_.begin(), names->walk_types_.end(),
                   [](const SampledType& a, const SampledType& b) { return a.class_id < b.class_id; });
  return names;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading allocation names");
}

const AllocStack* AllocNames::find_stack(uint32_t id) const noexcept { return find_sorted(stacks_, id, stack_key); }

const StackFunction* AllocNames::find_function(uint64_t function_id) const noexcept {
  return find_sorted(functions_, function_id, function_key);
}

std::string AllocNames::type_name(uint64_t class_id) const {
  if (const SampledType* t = find_sorted(walk_types_, class_id, type_key)) return t->name;
  if (const SampledType* t = find_sorted(types_, class_id, type_key)) return t->name;
  return hex_name("type", class_id);
}

std::string AllocNames::frame_name(const StackFrame& frame) const {
  switch (frame.kind) {
    case FrameKind::Native: return hex_name("native", frame.value);
    case FrameKind::Truncated: return "<truncated>";
    default: break;
  }
  const StackFunction* f = find_function(frame.value);
  if (!f) return hex_name("function", frame.value);
  return f->type.empty() ? f->method : f->type + "." + f->method;
}

const StackFrame* AllocNames::site_frame(const AllocStack& stack) const noexcept {
  const StackFrame* first_managed = nullptr;
  for (const StackFrame& frame : stack.frames) {
    if (frame.kind != FrameKind::Managed) continue;
    if (!first_managed) first_managed = &frame;
    const StackFunction* f = find_function(frame.value);
    if (f && !is_runtime_module(f->module)) return &frame;
  }
  return first_managed;
}

}  // namespace gcsnap
