#include "analysis/shape_trie.hpp"

#include <algorithm>

namespace gcsnap::leaks {

uint32_t ShapeTrie::child(uint32_t shape, uint32_t label) {
  const uint64_t key = static_cast<uint64_t>(shape) << 32 | label;
  const auto [it, inserted] = children_.try_emplace(key, static_cast<uint32_t>(label_.size()));
  if (inserted) {
    parent_.push_back(shape);
    label_.push_back(label);
    depth_.push_back(shape == kNone ? 0 : depth_[shape] + 1);
  }
  return it->second;
}

uint32_t ShapeTrie::root(uint8_t kind, uint8_t flags) {
  return child(kNone, kRootLabel | static_cast<uint32_t>(kind) << 8 | flags);
}

uint32_t ShapeTrie::ancestor(uint32_t shape, uint32_t levels) const noexcept {
  for (uint32_t i = 0; i < levels; ++i) shape = parent_[shape];
  return shape;
}

// Whether the last PERIOD types of SHAPE equal the PERIOD types before them.
bool ShapeTrie::repeats(uint32_t shape, uint32_t period) const noexcept {
  if (depth_[shape] < 2 * period) return false;
  uint32_t a = shape, b = ancestor(shape, period);
  for (uint32_t i = 0; i < period; ++i, a = parent_[a], b = parent_[b])
    if (label_[a] != label_[b]) return false;
  return true;
}

uint32_t ShapeTrie::extend(uint32_t shape, uint32_t type) {
  const uint64_t key = static_cast<uint64_t>(shape) << 32 | type;
  // Only extensions that collapsed are in extended_; a child made by an earlier extend that
  // did not is its own answer (child() is called with a type label by extend alone).
  if (const auto it = extended_.find(key); it != extended_.end()) return it->second;
  if (const auto it = children_.find(key); it != children_.end()) return it->second;
  uint32_t out = child(shape, type);
  // SHAPE has no repeat (invariant), so one that appears ends at the new type, and dropping
  // it leaves a prefix of SHAPE, which has none either: at most one drop.
  for (uint32_t p = 1; p <= max_period_; ++p) {
    if (repeats(out, p)) {
      out = ancestor(out, p);
      extended_.emplace(key, out);
      break;
    }
  }
  return out;
}

std::vector<uint32_t> ShapeTrie::labels(uint32_t shape) const {
  std::vector<uint32_t> out;
  for (uint32_t s = shape; s != kNone; s = parent_[s]) out.push_back(label_[s]);
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace gcsnap::leaks
