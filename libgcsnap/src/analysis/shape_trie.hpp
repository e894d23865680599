#pragma once
// Interned retention-path shapes with repeated hops collapsed (leak_suspects.hpp,
// collapse_repeats): a trie whose nodes are shapes, so that a child's shape is one lookup
// from its BFS parent's, and every object's shape costs O(1) amortised instead of its depth.

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tsl/robin_map.h>

namespace gcsnap::leaks {

class ShapeTrie {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  /// Labels at or above this value name a root (kind and flags), below it a type.
  static constexpr uint32_t kRootLabel = 0x80000000u;

  explicit ShapeTrie(size_t max_period = 4) : max_period_(max_period) {}

  /// Return the shape made of a root alone (its kind and flags).
  uint32_t root(uint8_t kind, uint8_t flags);
  /// Return SHAPE extended by one hop to an object of TYPE (< kRootLabel), collapsed: when
  /// the last p types (p <= max_period) repeat the p before them, the repeat is dropped.
  uint32_t extend(uint32_t shape, uint32_t type);

  uint32_t parent(uint32_t shape) const noexcept { return parent_[shape]; }
  uint32_t label(uint32_t shape) const noexcept { return label_[shape]; }
  /// Types in the shape (the root label not counted).
  uint32_t depth(uint32_t shape) const noexcept { return depth_[shape]; }
  size_t size() const noexcept { return label_.size(); }
  /// Return the labels from the root's to the last type.
  std::vector<uint32_t> labels(uint32_t shape) const;
  /// Free the lookup maps: parent(), label(), depth() and labels() still work; root(), extend()
  /// and find_child() must not be called any more.
  void forget_children() {
    decltype(children_)().swap(children_);
    decltype(extended_)().swap(extended_);
  }
  /// Return the shape whose parent is PARENT (kNone: a root's) and whose last label is LABEL,
  /// or kNone when this trie has none.
  uint32_t find_child(uint32_t parent, uint32_t label) const noexcept {
    const auto it = children_.find(static_cast<uint64_t>(parent) << 32 | label);
    return it == children_.end() ? kNone : it->second;
  }

 private:
  uint32_t child(uint32_t shape, uint32_t label);
  uint32_t ancestor(uint32_t shape, uint32_t levels) const noexcept;
  bool repeats(uint32_t shape, uint32_t period) const noexcept;

  size_t max_period_;
  std::vector<uint32_t> parent_, label_, depth_;
  // Open addressing: a million-shape trie in node-based maps spent a quarter of `gcsnap
  // leaks` in rehashing, allocating and freeing nodes.
  // The map keeps the low bits of the hash (power-of-two buckets) and std::hash of an integer
  // is the integer, whose low bits are only the label: mix them all in first.
  struct KeyHash {
    size_t operator()(uint64_t key) const noexcept {
      key ^= key >> 33;
      key *= 0xff51afd7ed558ccdull;
      return key ^ key >> 33;
    }
  };
  tsl::robin_map<uint64_t, uint32_t, KeyHash> children_;  // parent << 32 | label -> shape
  // shape << 32 | type -> collapsed shape, for the extensions that collapsed only (the others
  // are children_'s entries: one map entry per shape, not two).
  tsl::robin_map<uint64_t, uint32_t, KeyHash> extended_;
};

}  // namespace gcsnap::leaks
