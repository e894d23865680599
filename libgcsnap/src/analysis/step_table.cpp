#include "analysis/step_table.hpp"

#include "huge_pages.hpp"

namespace gcsnap::leaks {

void StepTable::reserve(size_t n) {
  size_t slots = 16;
  while (slots / 4 * 3 < n) slots *= 2;
  if (slots > slots_.size()) grow(slots);
}

void StepTable::grow(size_t slots) {
  std::vector<Slot> old;
  old.swap(slots_);
  detail::assign_huge(slots_, slots, Slot{kEmpty, 0});
  mask_ = slots - 1;
  limit_ = slots / 4 * 3;
  for (const Slot& s : old) {
    if (s.key == kEmpty) continue;
    size_t i = hash(s.key) & mask_;
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

std::pair<uint32_t*, bool> StepTable::try_emplace(uint64_t key, uint32_t value) {
  if (size_ >= limit_) grow(slots_.empty() ? 16 : 2 * slots_.size());
  size_t i = hash(key) & mask_;
  for (;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.key == key) return {&s.value, false};
    if (s.key == kEmpty) {
      s = Slot{key, value};
      ++size_;
      return {&s.value, true};
    }
  }
}

void StepTable::prefetch(uint64_t key) const noexcept {
  if (!slots_.empty()) __builtin_prefetch(&slots_[hash(key) & mask_]);
}

void StepTable::release() noexcept {
  std::vector<Slot>().swap(slots_);
  mask_ = size_ = limit_ = 0;
}

}  // namespace gcsnap::leaks
