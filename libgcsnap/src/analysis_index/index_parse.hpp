#pragma once
// One whole read of an analysis index (format-spec.md §12.4), in its steps: index_read.cpp
// reads the header, decodes the arrays asked for and assembles the AnalysisIndex over them;
// index_read_checks.cpp checks each array's rules on the way. Internal to the library.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "analysis_index/index_access.hpp"
#include "analysis_index/index_array_checks.hpp"
#include "analysis_index/index_layout.hpp"
#include "analysis_index/index_pieces.hpp"
#include "gcsnap/analysis_index.hpp"

namespace gcsnap::detail {

// One read of an index, in the steps of §12.4: the header, the parts asked for widened to what
// they need, the padding (whole reads), the checks of each part's arrays as jobs, the checks
// that need several arrays, and the AnalysisIndex over the arrays in place. The jobs run after they
// are added: they keep their state in this object, which outlives them.
class IndexParse {
 public:
  explicit IndexParse(std::span<const std::byte> bytes) : bytes_(bytes), h_(bytes.data()) {}

  /// The header and directory only (§12.4 items 1-3), for a reader that decodes pieces itself.
  Result<detail::IndexHeaderFacts> header_facts(const IndexIdentity* expected);

  Result<AnalysisIndex> run(const IndexIdentity* expected, IndexParts want);

 private:
  bool wanted(IndexParts p) const { return (want_ & p) != 0; }

  // The header and the directory (index_header.hpp), and the arrays' frames in the file.
  std::optional<Error> read_header(const IndexIdentity* expected);

  // What the parts asked for need (§12.4): node-indexed arrays come with the node columns.
  static IndexParts widen(IndexParts want);

  // The arrays the parts asked for need (§12.4 item 5); the roots always.
  std::array<bool, L::kArrayCount> arrays_needed() const;

  // Decode the arrays needed into the image, which then stands for the file: every frame's
  // length and decoded size are checked before the image is allocated (a small damaged file
  // cannot ask for a large one beyond what its frames say), then the frames are decoded on
  // two threads.
  std::optional<Error> decode_arrays();

  static bool any(const void*, size_t, uint64_t) { return true; }

  // 10-11: roots, always (small: copied); their count ties the index to the GC's root table.
  void add_root_checks(CheckJobs& jobs);

  // 1-4: object columns.
  void add_object_checks(CheckJobs& jobs);

  ArrayCheck check_offsets(Source& src, size_t which) const;

  ArrayCheck check_nodes(Source& src, size_t which) const;

  // 5-9: CSR both ways and the edge slots; 12: dependent edges, with the forward CSR (they are
  // its last successors).
  void add_graph_checks(CheckJobs& jobs);

  // 13-15: the dominator tree. The preorder marks the reachable nodes, the dominators must
  // agree (one job: the second array's rule needs the first's result).
  void add_dominator_checks(CheckJobs& jobs);

  // 17: the shortest-path tree. A parent is a node or a mark; as many nodes are reached as the
  // dominators say (the same strong roots reach the same objects); the root marks are listed
  // so that they can be matched with the roots once those are read.
  void add_path_tree_checks(CheckJobs& jobs);

  // 16: the type histogram (small: copied).
  void add_type_checks(CheckJobs& jobs);

  // Every root mark of the tree is on a strong root's object (from_parents checks the converse).
  std::optional<Error> check_root_marks() const;

  const std::byte* at(size_t which) const { return bytes_.data() + place_.offset[which]; }
  std::span<const uint32_t> u32s(size_t which) const {
    return {reinterpret_cast<const uint32_t*>(at(which)), static_cast<size_t>(place_.bytes[which] / 4)};
  }
  std::span<const uint64_t> u64s(size_t which) const {
    return {reinterpret_cast<const uint64_t*>(at(which)), static_cast<size_t>(place_.bytes[which] / 8)};
  }
  std::span<const uint32_t> forward_narrow() const {
    return wide_ || !wanted(kIndexForward) ? std::span<const uint32_t>() : u32s(L::kForwardOffsets);
  }
  std::span<const uint64_t> forward_wide() const {
    return wide_ && wanted(kIndexForward) ? u64s(L::kForwardOffsets) : std::span<const uint64_t>();
  }
  std::span<const uint32_t> forward_targets() const {
    return wanted(kIndexForward) ? u32s(L::kForwardTargets) : std::span<const uint32_t>();
  }

  // Dependent edges are the last successors of their primary (edge_kind relies on it).
  std::optional<Error> check_dependent_edges() const;

  // 18: the holder table and the nearest instances, checked against the histogram
  // (index_type_holders.hpp, index_nearest_instances.hpp).
  std::optional<Error> check_holders();

  // The AnalysisIndex over the checked arrays, in place.
  AnalysisIndex assemble();

  std::span<const std::byte> bytes_;
  const std::byte* h_;
  std::shared_ptr<const void> keep_;  // the image
  L::Counts c_;
  L::Placement place_;
  IndexParts want_ = 0;
  size_t n_ = 0;
  uint64_t m_ = 0;
  bool wide_ = false;
  uint64_t root_total_ = 0;
  uint16_t minor_ = 0;
  AnalysisIndexAccess::GraphParts parts_;  // the roots and dependent edges the jobs copy out
  std::vector<TypeStats> types_;           // the histogram the job copies out
  std::optional<std::vector<IndexedTypeHolder>> holders_;  // the holder table (kIndexHolders)
  std::optional<NearestInstances> nearest_;                // the nearest instances (kIndexHolders)
  std::optional<std::vector<LargestHead>> heads_;          // the largest heads (kIndexHolders)
  std::vector<NodeIndex> root_marks_;      // the tree's root marks, matched with the roots after
  std::array<std::span<const unsigned char>, L::kArrayCount> coded_{};  // each array's frames in the file
  std::atomic<bool> out_of_memory_{false};
};

}  // namespace gcsnap::detail
