#include "analysis/shape_trie.hpp"

#include <algorithm>

namespace gcsnap::leaks {

void ShapeTrie::reserve(size_t shapes) {
  nodes_.reserve(shapes);
  tails_.reserve(shapes);
  steps_.reserve(shapes);
}

uint32_t ShapeTrie::add_node(uint32_t parent, uint32_t label) {
  const auto id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(Node{parent, label, parent == kNone ? 0 : nodes_[parent].depth + 1});
  tails_.push_back((parent == kNone ? 0 : tails_[parent] << 8) | label_hash(label));
  return id;
}

uint32_t ShapeTrie::root(uint8_t kind, uint8_t flags) {
  const uint32_t label = kRootLabel | static_cast<uint32_t>(kind) << 8 | flags;
  const uint64_t key = static_cast<uint64_t>(kNone) << 32 | label;
  const auto [value, inserted] = steps_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
  if (inserted) add_node(kNone, label);
  return *value;
}

// SHAPE has no repeat (invariant), so a repeat of SHAPE + TYPE ends at TYPE, and dropping it
// leaves a prefix of SHAPE, which has none either: at most one drop. The labels of the new
// shape from its end: TYPE, then SHAPE's up its parents (8 = 2 x the longest period).
uint32_t ShapeTrie::collapsed(uint32_t shape, uint32_t type) const noexcept {
  constexpr size_t kMaxPeriod = 4;
  const size_t periods = std::min(max_period_, kMaxPeriod);
  const uint32_t types = nodes_[shape].depth + 1;  // in SHAPE + TYPE
  // A period p repeats only if TYPE equals the label p - 1 hops above SHAPE: their hashes first.
  const uint32_t hash = label_hash(type), tails = tails_[shape];
  bool may_repeat = false;
  for (size_t p = 1; p <= periods && 2 * p <= types; ++p) may_repeat |= ((tails >> (8 * (p - 1))) & 0xFF) == hash;
  if (!may_repeat) return kNone;
  uint32_t tail[2 * kMaxPeriod];  // tail[i]: the label i hops from the end
  uint32_t at[2 * kMaxPeriod];    // at[i]: the shape whose label tail[i] is
  tail[0] = type;
  at[0] = kNone;
  size_t known = 1;
  uint32_t s = shape;
  for (size_t p = 1; p <= periods && 2 * p <= types; ++p) {
    while (known < 2 * p) {
      tail[known] = nodes_[s].label;
      at[known++] = s;
      s = nodes_[s].parent;
    }
    size_t same = 0;  // a loop, not std::equal: that calls memcmp for a few words
    while (same < p && tail[same] == tail[p + same]) ++same;
    if (same == p) return at[p];  // drop the last p hops
  }
  return kNone;
}

uint32_t ShapeTrie::extend(uint32_t shape, uint32_t type) {
  const uint64_t key = static_cast<uint64_t>(shape) << 32 | type;
  const auto [value, inserted] = steps_.try_emplace(key, kNone);
  if (!inserted) return *value;
  uint32_t out = collapsed(shape, type);
  if (out == kNone) out = add_node(shape, type);
  *value = out;  // add_node does not touch the map: VALUE still points at the slot
  return out;
}

std::vector<uint32_t> ShapeTrie::labels(uint32_t shape) const {
  std::vector<uint32_t> out;
  for (uint32_t s = shape; s != kNone; s = nodes_[s].parent) out.push_back(nodes_[s].label);
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace gcsnap::leaks
