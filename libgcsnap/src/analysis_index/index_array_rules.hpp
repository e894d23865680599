#pragma once
// The rules of the analysis index's arrays that hold element by element (format-spec.md §12.4
// item 4), in one place for the three ways an index is read: whole (index_read_checks.cpp), a
// piece at a time for point queries (index_pieces.cpp) and streamed (index_columns.cpp). Each
// names the error detail a reader reports when it is broken. Internal to the library.

#include <cstddef>
#include <cstdint>

#include "gcsnap/dominators.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/retention.hpp"

namespace gcsnap::index_rules {

/// Array 4: a generation is one of Generation's values, Gen0 to NonGcHeap, or Unknown.
inline constexpr uint8_t kLastGeneration = static_cast<uint8_t>(Generation::NonGcHeap);
inline constexpr uint8_t kUnknownGeneration = static_cast<uint8_t>(Generation::Unknown);
inline constexpr const char* kGenerationRule = "analysis index generation out of range";
constexpr bool is_generation(uint8_t g) { return g <= kLastGeneration || g == kUnknownGeneration; }

/// Array 1: the addresses rise strictly.
inline constexpr const char* kAddressRule = "analysis index addresses not increasing";
/// Whether A[0..COUNT) rise strictly and, when FIRST (A[0]'s index) is not 0, above PREVIOUS
/// (the element before A[0]). A branch-free reduction, which the compiler can vectorize.
inline bool addresses_rise(const uint64_t* a, size_t count, uint64_t previous, uint64_t first) {
  bool bad = first > 0 && a[0] <= previous;
  for (size_t i = 1; i < count; ++i) bad |= a[i] <= a[i - 1];
  return !bad;
}

/// Array 14: an immediate dominator is a node, the virtual root, or none (not reachable).
inline constexpr const char* kDominatorRule = "analysis index dominators do not match the preorder";
constexpr bool is_dominator(uint32_t d, uint64_t nodes) { return d < nodes || d == kVirtualRoot || d == kNoNode; }

/// Array 17: a shortest-path parent is a node, a root's mark, or none (not reached).
inline constexpr const char* kPathParentRule = "analysis index shortest-path parent out of range";
constexpr bool is_path_parent(uint32_t p, uint64_t nodes) {
  return p < nodes || p == ShortestPathTree::kRootMark || p == kNoNode;
}

/// Arrays 10 and 11: a root's position is in the GC's root table.
inline constexpr const char* kRootRule = "analysis index root out of range";
inline constexpr const char* kUnresolvedRootRule = "analysis index unresolved root out of range";

}  // namespace gcsnap::index_rules
