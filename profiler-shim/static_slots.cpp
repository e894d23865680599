#include "static_slots.hpp"

#include <algorithm>

namespace gcsnap::shim {

void StaticSlotTable::add_module(uint64_t module) {
  if (module == 0) return;
  std::lock_guard<std::mutex> lock(inbox_mutex_);
  added_.push_back(module);
}

void StaticSlotTable::remove_module(uint64_t module) {
  if (module == 0) return;
  std::lock_guard<std::mutex> lock(inbox_mutex_);
  removed_.push_back(module);
}

void StaticSlotTable::resolve_type(StaticsRuntime& runtime, uint64_t module, TypeState& type, ModuleState& state) {
  if (type.class_id == 0) {
    ++stats_.runtime_calls;
    Lookup found = runtime.class_of(module, type.info, type.class_id);
    if (found == Lookup::NotYet) return;
    if (found == Lookup::Never || type.class_id == 0) {
      stats_.skipped_fields += type.info.fields.size();
      type.done = true;
      return;
    }
  }
  bool pending = false;
  for (size_t i = 0; i < type.info.fields.size(); ++i) {
    if (type.fields[i] != Lookup::NotYet) continue;
    uint64_t address = 0;
    ++stats_.runtime_calls;
    Lookup found = runtime.static_address(module, type.class_id, type.info.fields[i].token, address);
    if (found == Lookup::Found && address == 0) found = Lookup::Never;
    type.fields[i] = found;
    if (found == Lookup::Found) state.found.push_back(NamedStatic{address, type.info.fields[i].name});
    if (found == Lookup::Never) ++stats_.skipped_fields;
    pending = pending || found == Lookup::NotYet;
  }
  type.done = !pending;
}

void StaticSlotTable::refresh(StaticsRuntime& runtime) {
  std::vector<uint64_t> added, removed;
  {
    std::lock_guard<std::mutex> lock(inbox_mutex_);
    added.swap(added_);
    removed.swap(removed_);
  }
  bool changed = false;
  for (uint64_t module : removed) changed = modules_.erase(module) > 0 || changed;
  for (uint64_t module : added) {
    if (modules_.count(module)) continue;  // a load callback and the attach catch-up both saw it
    ModuleState state;
    std::vector<StaticTypeInfo> types;
    if (runtime.module_types(module, types)) {
      state.types.reserve(types.size());
      for (StaticTypeInfo& info : types) {
        TypeState type;
        type.fields.assign(info.fields.size(), Lookup::NotYet);
        type.info = std::move(info);
        state.types.push_back(std::move(type));
      }
    }
    modules_.emplace(module, std::move(state));
    ++stats_.modules;
  }
  uint64_t pending = 0;
  for (auto& [module, state] : modules_) {
    const size_t before = state.found.size();
    for (TypeState& type : state.types) {
      if (type.done) continue;
      resolve_type(runtime, module, type, state);
      if (!type.done) ++pending;
    }
    changed = changed || state.found.size() != before;
    // Finished types cost nothing at later GCs.
    std::erase_if(state.types, [](const TypeState& t) { return t.done; });
  }
  stats_.types_pending = pending;
  if (changed) rebuild_slots();
}

void StaticSlotTable::rebuild_slots() {
  slots_.clear();
  for (const auto& [module, state] : modules_) slots_.insert(slots_.end(), state.found.begin(), state.found.end());
  std::sort(slots_.begin(), slots_.end(), [](const NamedStatic& a, const NamedStatic& b) {
    return a.address != b.address ? a.address < b.address : a.name < b.name;
  });
  // Two names for one slot would be a runtime surprise: name neither rather than guess.
  std::vector<NamedStatic> unique;
  unique.reserve(slots_.size());
  for (size_t i = 0; i < slots_.size();) {
    size_t j = i + 1;
    while (j < slots_.size() && slots_[j].address == slots_[i].address) ++j;
    if (j == i + 1) unique.push_back(std::move(slots_[i]));
    i = j;
  }
  slots_.swap(unique);
  stats_.slots = slots_.size();
}

}  // namespace gcsnap::shim
