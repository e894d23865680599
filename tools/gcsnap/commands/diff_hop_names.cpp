#include "commands/diff_hop_names.hpp"

#include <algorithm>
#include <stdexcept>

#include "errors/cli_error.hpp"
#include "gcsnap/heap_columns.hpp"
#include "gcsnap/index_path_tree.hpp"

namespace gcsnap::cli {

AddressOf diff_row_addresses(const DiffSide& side, const HeapGraph& graph, const WalkDiff& diff) {
  if (!side.view.blocks) return [&graph](NodeIndex n) { return graph.address(n); };
  auto nodes = std::make_shared<std::vector<NodeIndex>>();
  auto add_path = [&](const RetentionPath& p) { nodes->insert(nodes->end(), p.nodes.begin(), p.nodes.end()); };
  for (size_t g = 0; g < diff.new_groups.size(); ++g) {
    const GroupPath& p = diff.new_paths[g];
    nodes->push_back(static_cast<NodeIndex>(p.member != kNoObject ? p.member : diff.new_groups[g].members.front()));
    add_path(p.path);
    for (const GroupShape& shape : p.more_shapes) {
      nodes->push_back(static_cast<NodeIndex>(shape.member));
      add_path(shape.path);
    }
  }
  std::sort(nodes->begin(), nodes->end());
  nodes->erase(std::unique(nodes->begin(), nodes->end()), nodes->end());
  auto columns = value_or_fail(HeapColumns::open(*side.index), side.selected.file);
  auto addresses = std::make_shared<std::vector<uint64_t>>();
  if (Status s = columns->find_addresses(*nodes, *addresses); !s) fail_on(side.selected.file, s.error());
  return [nodes, addresses](NodeIndex n) {
    const auto it = std::lower_bound(nodes->begin(), nodes->end(), n);
    if (it == nodes->end() || *it != n) throw std::logic_error("diff: the address of a node not read back");
    return (*addresses)[static_cast<size_t>(it - nodes->begin())];
  };
}

DiffHopNamer::DiffHopNamer(const DiffSide& side, const Recording& rec, const HeapGraph& graph, AddressOf address)
    : side_(side), graph_(graph), address_(std::move(address)) {
  if (!address_) address_ = [&graph](NodeIndex n) { return graph.address(n); };
  statics_ = value_or_fail(rec.read_static_slots(side.selected.index, static_names_), side.selected.file);
  if (!side.index) slots_ = value_or_fail(EdgeSlots::build(side.walk.objects, graph), side.selected.file);
  const EdgeSlots& slots = side.index && !side.path_tree ? side.index->edge_slots : slots_;
  namer_ = std::make_unique<EdgeNamer>(graph, side.walk.names, slots, statics_);
}

HopField DiffHopNamer::name(NodeIndex from, NodeIndex to) const {
  if (!side_.path_tree) return namer_->name_edge(from, to);
  // Without the forward graph: the slot from the index's pieces, named as name_edge would.
  const uint32_t slot = value_or_fail(side_.path_tree->hop_slot(from, to), side_.selected.file);
  return namer_->name_slot_at(address_(from), graph_.type_id(from), slot, UnnamedReason::SlotUnknown);
}

}  // namespace gcsnap::cli
