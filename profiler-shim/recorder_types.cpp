// Naming what the walk meets: type ids and layouts at a class's first sight, object sizes
// from each class's learned rule, and the methods of stack roots.
#include "recorder.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>

namespace gcsnap::shim {

uint32_t Recorder::type_id_for(uint64_t class_id, uint64_t object_id) {
  if (class_id == 0) return 0;
  auto found = type_ids_.find(class_id);
  if (found != type_ids_.end()) return found->second;
  const auto started = std::chrono::steady_clock::now();
  RuntimeQueries::TypeName resolved = queries_.type_name(class_id);
  if (!resolved.resolved) batch_->drops.reasons |= drop_reason::kTypeUnresolved;
  if (resolved.name.empty()) {
    char text[48];
    std::snprintf(text, sizeof(text), "<unresolved type 0x%llx>", static_cast<unsigned long long>(class_id));
    resolved.name = text;
  }
  uint32_t id = next_type_id_++;
  type_ids_.emplace(class_id, id);
  // Decided from the name before it moves into the batch.
  const auto rule = values_ ? value_rule_for(resolved.name, resolved.size_kind == SizeKind::Variable) : ValueRule::None;
  batch_->types.push_back(OwnedType{id, class_id, std::move(resolved.name), std::move(resolved.module)});
  if (!classes_.find(class_id)) {
    ClassInfo* info = classes_.insert(class_id, id, resolved.size_kind);
    info->value_rule = static_cast<uint8_t>(rule);
  }
  // The layout is per type too: resolved here, where the class is first registered.
  OwnedLayout layout;
  if (options_.capture_slots && queries_.type_layout(class_id, object_id, layout)) {
    layout.type_id = id;
    std::stable_sort(layout.fields.begin(), layout.fields.end(),
                     [](const OwnedField& a, const OwnedField& b) { return a.offset < b.offset; });
    // Delegates (System.Delegate's _target among the references) get their code pointers
    // read at each walk, for the methods they call (format-spec.md §6.22).
    const bool maybe_delegate = std::any_of(layout.fields.begin(), layout.fields.end(),
                                            [](const OwnedField& f) { return f.name == "_target"; });
    uint32_t ptr = 0, aux = 0;
    ClassInfo* info = classes_.find(class_id);
    if (maybe_delegate && info && queries_.delegate_code_offsets(class_id, ptr, aux)) {
      info->method_ptr_offset = ptr;
      info->method_ptr_aux_offset = aux;
    }
    batch_->layouts.push_back(std::move(layout));
  }
  ++types_named_;
  type_naming_ns_ += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count());
  return id;
}

ClassInfo* Recorder::class_info(uint64_t class_id, uint64_t object_id) {
  if (ClassInfo* info = classes_.find(class_id)) return info;
  uint32_t type_id = type_id_for(class_id, object_id);  // names a new class; inserts it into classes_
  if (ClassInfo* info = classes_.find(class_id)) return info;
  return classes_.insert(class_id, type_id, SizeKind::Unknown);  // named before, by a frozen object
}

uint64_t Recorder::object_size(ClassInfo* info, uint64_t object_id) {
  if (!info) {  // ClassID 0: nothing to learn
    ++size_queries_;
    return queries_.object_size(object_id);
  }
  const bool trusted = info->validations_left == 0 && !options_.verify_sizes;
  if (info->rule == SizeRule::Fixed && trusted) {
    ++size_predictions_;
    return info->base;
  }
  uint32_t count = info->rule == SizeRule::Fixed || info->rule == SizeRule::Ask ? 0 : queries_.component_count(object_id);
  if (info->rule == SizeRule::Components && trusted) {
    ++size_predictions_;
    return ClassCache::predict(*info, count);
  }
  if (info->rule == SizeRule::Learning && !options_.verify_sizes) {
    if (uint64_t size = ClassCache::predict_learning(*info, count)) {
      ++size_predictions_;
      return size;
    }
  }
  ++size_queries_;
  if (info->rule == SizeRule::Fixed || info->rule == SizeRule::Components) ++size_checks_;
  uint64_t size = queries_.object_size(object_id);
  if (!ClassCache::learn(*info, size, count)) ++size_mismatches_;
  return size;  // the runtime's answer is what is recorded
}

void Recorder::note_delegate(const ClassInfo& info, uint64_t object_id) noexcept {
  // A cap on what one walk keeps (24 B each): past it, delegates go unnamed.
  constexpr size_t kMaxDelegates = size_t{1} << 22;
  GcBatch& b = *batch_;
  if (b.delegate_codes.size() >= kMaxDelegates) return;
  const uint64_t* words = queries_.object_words(object_id);
  if (!words) return;
  try {
    b.delegate_codes.push_back({object_id, words[info.method_ptr_offset / 8], words[info.method_ptr_aux_offset / 8]});
  } catch (const std::bad_alloc&) {
  }
}

// The method of a delegate (as ClrMD decides): its _methodPtr's, else its _methodPtrAux's
// (a static method's delegate calls through a shuffle thunk, the method in the aux pointer).
void Recorder::resolve_delegate_targets() {
  GcBatch& b = *batch_;
  if (b.delegate_codes.empty()) return;
  auto resolve = [&](uint64_t code) -> uint64_t {
    if (code == 0) return 0;
    auto [it, inserted] = function_at_code_.try_emplace(code, 0);
    if (inserted) it->second = queries_.function_at(code);
    return it->second;
  };
  b.delegate_targets.reserve(b.delegate_codes.size());
  for (const auto& [address, ptr, aux] : b.delegate_codes) {
    uint64_t function = resolve(ptr);
    if (function == 0) function = resolve(aux);
    b.delegate_targets.push_back(DelegateTarget{address, function});
    if (function == 0 || !known_functions_.insert(function).second) continue;
    std::string name = queries_.method_name(function);
    if (!name.empty()) b.methods.push_back(OwnedMethod{function, std::move(name)});
  }
  b.delegate_codes.clear();
}

void Recorder::resolve_new_methods() {
  GcBatch& b = *batch_;
  for (size_t i = 0; i < b.root_ids.size(); ++i) {
    if (b.root_kinds[i] != static_cast<uint8_t>(RootKind::Stack) || b.root_ids[i] == 0) continue;
    if (!known_functions_.insert(b.root_ids[i]).second) continue;
    std::string name = queries_.method_name(b.root_ids[i]);
    if (!name.empty()) b.methods.push_back(OwnedMethod{b.root_ids[i], std::move(name)});
  }
}

}  // namespace gcsnap::shim
