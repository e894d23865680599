#pragma once
// Interned retention-path shapes with repeated hops collapsed (leak_suspects.hpp,
// collapse_repeats): a trie whose nodes are shapes, so that a child's shape is one lookup
// from its BFS parent's, and every object's shape costs O(1) amortised instead of its depth.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/step_table.hpp"

namespace gcsnap::leaks {

class ShapeTrie {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  /// Labels at or above this value name a root (kind and flags), below it a type.
  static constexpr uint32_t kRootLabel = 0x80000000u;

  explicit ShapeTrie(size_t max_period = 4) : max_period_(max_period) {}

  /// Make room for about SHAPES shapes (one per object of a walk, at most), so that the
  /// lookup map is not rehashed while a walk is read. Throws std::bad_alloc.
  void reserve(size_t shapes);
  /// Return the shape made of a root alone (its kind and flags).
  uint32_t root(uint8_t kind, uint8_t flags);
  /// Return SHAPE extended by one hop to an object of TYPE (< kRootLabel), collapsed: when
  /// the last p types (p <= max_period) repeat the p before them, the repeat is dropped.
  uint32_t extend(uint32_t shape, uint32_t type);
  /// Start loading what extend(SHAPE, TYPE) will probe first (a hint; nothing changes).
  void prefetch(uint32_t shape, uint32_t type) const noexcept {
    steps_.prefetch(static_cast<uint64_t>(shape) << 32 | type);
    __builtin_prefetch(&nodes_[shape]);  // a new step's collapse test reads both
    __builtin_prefetch(&tails_[shape]);
  }

  uint32_t parent(uint32_t shape) const noexcept { return nodes_[shape].parent; }
  uint32_t label(uint32_t shape) const noexcept { return nodes_[shape].label; }
  /// Types in the shape (the root label not counted).
  uint32_t depth(uint32_t shape) const noexcept { return nodes_[shape].depth; }
  size_t size() const noexcept { return nodes_.size(); }
  /// Return the labels from the root's to the last type.
  std::vector<uint32_t> labels(uint32_t shape) const;
  /// Free the lookup map: parent(), label(), depth() and labels() still work; root() and
  /// extend() must not be called any more.
  void forget_children() {
    steps_.release();
    std::vector<uint32_t>().swap(tails_);
  }

 private:
  // One record per shape: a walk up the parents (the collapse test) touches one cache line
  // per level, not one per array.
  struct Node {
    uint32_t parent, label, depth;
  };
  uint32_t add_node(uint32_t parent, uint32_t label);
  // The shape that SHAPE extended by TYPE collapses to, or kNone when it does not collapse.
  uint32_t collapsed(uint32_t shape, uint32_t type) const noexcept;
  static uint32_t label_hash(uint32_t label) noexcept { return (label * 0x9E3779B1u) >> 24; }

  size_t max_period_;
  std::vector<Node> nodes_;
  // parent << 32 | label -> the shape it leads to: the child, or for an extension that
  // collapsed the shorter shape it collapsed to (that child is never made: no object has it).
  // One open-addressing map and one probe per step: node-based maps spent a quarter of
  // `gcsnap leaks` in rehashing, allocating and freeing nodes.
  StepTable steps_;
  // Per shape, until forget_children: label_hash of its last four labels, its own in the low
  // byte. The collapse test climbs the parents (a cache miss a level) only when one of them is
  // the new type's hash: in the synthetic series most new steps collapse nowhere.
  std::vector<uint32_t> tails_;
};

}  // namespace gcsnap::leaks
