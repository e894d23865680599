#pragma once
/// Type histogram: count, shallow bytes and retained bytes per type.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/dominators.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// Slots of TypeStats::generation_bytes: gen0, gen1, gen2, LOH, POH, frozen (NonGcHeap), and
/// last the objects whose generation is Unknown.
inline constexpr size_t kGenerationSlots = 7;
/// Return the slot of generation g in TypeStats::generation_bytes.
inline constexpr size_t generation_slot(Generation g) {
  const auto v = static_cast<size_t>(g);
  return v < kGenerationSlots - 1 ? v : kGenerationSlots - 1;
}

struct TypeStats {
  uint32_t type_id = 0;
  uint64_t count = 0;           ///< objects of the type in the walk
  uint64_t shallow_bytes = 0;   ///< sum of their own sizes
  /// Bytes that would be freed if every object of the type went away (as far as the
  /// dominator tree can tell): the sum of the retained sizes of the type's reachable
  /// objects that no other object of the same type dominates, so nested instances (a
  /// linked list's nodes) are not counted twice. 0 when no dominator tree was given.
  uint64_t retained_bytes = 0;
  uint64_t unreachable_count = 0;  ///< of count, objects no (strong) root reaches
  /// Shallow bytes by where the objects live (slots: generation_slot); all 0 unless
  /// build_type_histogram was given the generations. The slots add up to shallow_bytes.
  std::array<uint64_t, kGenerationSlots> generation_bytes{};
};

enum class TypeOrder : uint8_t { RetainedBytes = 0, ShallowBytes = 1, Count = 2 };

struct TypeHistogramOptions {
  TypeOrder order = TypeOrder::ShallowBytes;
  size_t top = 0;  ///< keep the first `top` types after sorting; 0 keeps all
};

/// Count the objects of each type, largest first by options.order, ties by type id.
/// `dominators` may be null (retained_bytes and unreachable_count stay 0); when given it
/// must come from the same graph. `generations` (ObjectTable::generations of the table the
/// graph was built from, or empty) fills TypeStats::generation_bytes.
/// Errors: InvalidArgument (tree of another graph, generations not one per node), OutOfMemory.
[[nodiscard]] Result<std::vector<TypeStats>> build_type_histogram(const HeapGraph& graph,
                                                                  const DominatorTree* dominators,
                                                                  const TypeHistogramOptions& options = {},
                                                                  std::span<const Generation> generations = {});

/// Sort STATS as build_type_histogram does (largest first by options.order, ties by type id)
/// and keep the first options.top (all for 0): for histograms kept elsewhere, such as an
/// analysis index (analysis_index.hpp).
void sort_type_stats(std::vector<TypeStats>& stats, const TypeHistogramOptions& options);

}  // namespace gcsnap
