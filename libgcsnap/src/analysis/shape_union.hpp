#pragma once
// The distinct path shapes with members over every heap walk of a leak series, counted without
// one trie of them all: per depth the sorted (parent, label) pairs with a member bit, into which
// each walk's own trie is merged and then dropped. The synthetic series makes about one shape
// per object and walk, so the union grows by the walk's object count each walk: kept as 8-byte
// keys it was 0.9 GB of the 3 GB peak at 10 x 10 M objects; delta-coded it is ~3 B a shape.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/shape_trie.hpp"

namespace gcsnap::leaks {

class ShapeUnion {
 public:
  /// Add the shapes of TRIE with HAS_MEMBERS[shape] != 0 (and their prefixes, without members).
  /// Throws std::bad_alloc.
  void add(const ShapeTrie& trie, std::span<const uint8_t> has_members);
  /// Distinct shapes (label sequences) that had members in some walk added.
  uint64_t members() const noexcept { return members_; }

 private:
  // levels_[d]: the shapes of depth d, sorted by (parent, label), each parent << 33 | label << 1
  // | has_members, the parent being the position of the parent shape in levels_[d - 1] (0 for
  // roots), delta-coded (shape_union.cpp).
  struct Level {
    std::vector<uint8_t> bytes;
    size_t size = 0;
  };
  std::vector<Level> levels_;
  uint64_t members_ = 0;
};

}  // namespace gcsnap::leaks
