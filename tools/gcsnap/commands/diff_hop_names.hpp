#pragma once
// The field and static names and the addresses of the hops of a diff's retention paths at its
// later GC (B), as `leaks` and `path` name them, from whichever form B was loaded in: a decoded
// walk (read with its slots), an analysis index with its forward graph and slots, or an index's
// shortest-path tree without the forward graph (IndexedPathTree::hop_slot reads a few pieces
// per hop), whose columns the diff read in blocks and did not keep.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "commands/diff_objects_report.hpp"
#include "gcsnap/edge_names.hpp"

namespace gcsnap::cli {

/// The address at a side's GC of a node of the graph its paths index.
using AddressOf = std::function<uint64_t(NodeIndex)>;

/// Return the addresses of the nodes DIFF's rows show (each group's example, its shapes'
/// members and every hop of their paths): GRAPH's own, or, when the diff read SIDE's columns in
/// blocks, read back from SIDE's index at once (each piece of the addresses at most once). Only
/// those nodes may be asked. Throws CliError naming the file.
AddressOf diff_row_addresses(const DiffSide& side, const HeapGraph& graph, const WalkDiff& diff);

class DiffHopNamer {
 public:
  /// Name the hops of GRAPH (the graph SIDE's paths index: the diff's graph_b, or the one SIDE
  /// built for them), with the statics of SIDE's GC in REC; ADDRESS tells a hop's address
  /// (GRAPH's when empty). Throws CliError naming the file.
  DiffHopNamer(const DiffSide& side, const Recording& rec, const HeapGraph& graph, AddressOf address = {});
  DiffHopNamer(const DiffHopNamer&) = delete;
  DiffHopNamer& operator=(const DiffHopNamer&) = delete;

  /// Return the name of the reference FROM -> TO (unnamed when B recorded no slots for it).
  /// Throws CliError when the index cannot be read.
  HopField name(NodeIndex from, NodeIndex to) const;

 private:
  const DiffSide& side_;
  const HeapGraph& graph_;
  AddressOf address_;
  std::string static_names_;
  std::vector<StaticSlot> statics_;
  EdgeSlots slots_;  // a decoded walk's; empty otherwise
  std::unique_ptr<EdgeNamer> namer_;
};

}  // namespace gcsnap::cli
