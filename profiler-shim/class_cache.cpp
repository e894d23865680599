#include "class_cache.hpp"

namespace gcsnap::shim {

ClassInfo* ClassCache::insert(uint64_t class_id, uint32_t type_id, SizeKind kind) {
  if ((count_ + 1) * 2 > slots_.size()) grow();
  size_t i = slot_of(class_id);
  while (slots_[i].class_id != 0) i = (i + 1) & mask_;
  ClassInfo& s = slots_[i];
  s = ClassInfo{};
  s.class_id = class_id;
  s.type_id = type_id;
  s.kind = kind;
  ++count_;
  return &s;
}

void ClassCache::grow() {
  std::vector<ClassInfo> old = std::move(slots_);
  size_t capacity = old.empty() ? 1024 : old.size() * 2;
  slots_.assign(capacity, ClassInfo{});
  mask_ = capacity - 1;
  for (const ClassInfo& s : old) {
    if (s.class_id == 0) continue;
    size_t i = slot_of(s.class_id);
    while (slots_[i].class_id != 0) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

bool ClassCache::learn(ClassInfo& info, uint64_t size, uint32_t count) noexcept {
  switch (info.rule) {
    case SizeRule::Fixed:
    case SizeRule::Components: {
      if (predict(info, count) != size) {
        info.rule = SizeRule::Ask;
        return false;
      }
      if (info.validations_left > 0) --info.validations_left;
      return true;
    }
    case SizeRule::Ask: return true;
    case SizeRule::Learning: break;
  }
  if (size == 0) {  // the runtime could not tell: nothing to learn from, ask every time
    info.rule = SizeRule::Ask;
    return true;
  }
  if (info.kind == SizeKind::Fixed) {
    info.rule = SizeRule::Fixed;
    info.base = size;
    info.validations_left = kValidations;
    return true;
  }
  if (!info.seen_one) {
    info.seen_one = true;
    info.first_size = size;
    info.first_count = count;
    return true;
  }
  if (count == info.first_count) {
    if (size != info.first_size) {
      info.rule = SizeRule::Ask;  // no rule of ours explains it
    } else if (info.first_repeats < kValidations) {
      ++info.first_repeats;
    }
    return true;
  }
  if (info.kind == SizeKind::Variable) {
    // A size at the minimum may be raised to it (the empty string): not a point of the line.
    if (size <= kMinObjectSize) return true;
    if (info.first_size <= kMinObjectSize) {
      info.first_size = size;
      info.first_count = count;
      info.first_repeats = 0;
      return true;
    }
  }
  if (size == info.first_size) {
    // Two counts, one size: the word at +8 is a field, not a count.
    if (info.kind == SizeKind::Variable) {
      info.rule = SizeRule::Ask;
    } else {
      info.rule = SizeRule::Fixed;
      info.base = size;
      info.validations_left = kValidations;
    }
    return true;
  }
  // base + count * component through both points, with integer, positive terms.
  bool up = count > info.first_count;
  uint64_t dc = up ? uint64_t{count} - info.first_count : uint64_t{info.first_count} - count;
  bool grows = size > info.first_size;
  uint64_t ds = grows ? size - info.first_size : info.first_size - size;
  if (up != grows || ds % dc != 0 || info.kind == SizeKind::Fixed) {
    info.rule = SizeRule::Ask;
    return true;
  }
  uint64_t component = ds / dc;
  uint64_t first_part = uint64_t{info.first_count} * component;
  if (component == 0 || component > 0xFFFF || first_part > info.first_size) {
    info.rule = SizeRule::Ask;
    return true;
  }
  info.rule = SizeRule::Components;
  info.component = component;
  info.base = info.first_size - first_part;
  info.validations_left = kValidations;
  return true;
}

}  // namespace gcsnap::shim
