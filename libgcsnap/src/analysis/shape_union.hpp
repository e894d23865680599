#pragma once
// The distinct path shapes with members over every heap walk of a leak series, counted without
// one trie of them all: per depth a sorted array of (parent, label) with a member bit, 8 B per
// shape, into which each walk's own trie is merged and then dropped.

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
  // levels_[d]: the shapes of depth d, sorted; parent << 33 | label << 1 | has_members, the
  // parent being the position of the parent shape in levels_[d - 1] (0 for roots).
  std::vector<std::vector<uint64_t>> levels_;
  uint64_t members_ = 0;
};

}  // namespace gcsnap::leaks
