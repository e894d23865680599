#pragma once
// The field and static names of the hops of a diff's retention paths at its later GC (B), as
// `leaks` and `path` name them, from whichever form B was loaded in: a decoded walk (read with
// its slots), an analysis index with its forward graph and slots, or an index's shortest-path
// tree without the forward graph (IndexedPathTree::hop_slot reads a few pieces per hop).

#include <memory>
#include <string>
#include <vector>

#include "commands/diff_objects_report.hpp"
#include "gcsnap/edge_names.hpp"

namespace gcsnap::cli {

class DiffHopNamer {
 public:
  /// Name the hops of GRAPH (the graph SIDE's paths index: the diff's graph_b, or the one SIDE
  /// built for them), with the statics of SIDE's GC in REC. Throws CliError naming the file.
  DiffHopNamer(const DiffSide& side, const Recording& rec, const HeapGraph& graph);
  DiffHopNamer(const DiffHopNamer&) = delete;
  DiffHopNamer& operator=(const DiffHopNamer&) = delete;

  /// Return the name of the reference FROM -> TO (unnamed when B recorded no slots for it).
  /// Throws CliError when the index cannot be read.
  HopField name(NodeIndex from, NodeIndex to) const;

 private:
  const DiffSide& side_;
  const HeapGraph& graph_;
  std::string static_names_;
  std::vector<StaticSlot> statics_;
  EdgeSlots slots_;  // a decoded walk's; empty otherwise
  std::unique_ptr<EdgeNamer> namer_;
};

}  // namespace gcsnap::cli
