#include "commands/diff_hop_names.hpp"

#include "errors/cli_error.hpp"
#include "gcsnap/index_path_tree.hpp"

namespace gcsnap::cli {

DiffHopNamer::DiffHopNamer(const DiffSide& side, const Recording& rec, const HeapGraph& graph)
    : side_(side), graph_(graph) {
  statics_ = value_or_fail(rec.read_static_slots(side.selected.index, static_names_), side.selected.file);
  if (!side.index) slots_ = value_or_fail(EdgeSlots::build(side.walk.objects, graph), side.selected.file);
  const EdgeSlots& slots = side.index && !side.path_tree ? side.index->edge_slots : slots_;
  namer_ = std::make_unique<EdgeNamer>(graph, side.walk.names, slots, statics_);
}

HopField DiffHopNamer::name(NodeIndex from, NodeIndex to) const {
  if (!side_.path_tree) return namer_->name_edge(from, to);
  // Without the forward graph: the slot from the index's pieces, named as name_edge would.
  const uint32_t slot = value_or_fail(side_.path_tree->hop_slot(from, to), side_.selected.file);
  return namer_->name_slot_at(graph_.address(from), graph_.type_id(from), slot, UnnamedReason::SlotUnknown);
}

}  // namespace gcsnap::cli
