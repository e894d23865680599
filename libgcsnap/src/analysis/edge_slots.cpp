// EdgeSlots and EdgeNamer: the slots of the graph's edges and the names of a path's hops.
#include <algorithm>
#include <memory>
#include <new>
#include <vector>

#include "gcsnap/edge_names.hpp"
#include "huge_pages.hpp"

namespace gcsnap {

Result<EdgeSlots> EdgeSlots::build(const ObjectTable& table, const HeapGraph& graph) {
  EdgeSlots out;
  if (table.reference_slots.empty()) return out;
  if (table.reference_slots.size() != table.reference_targets.size() || table.size() != graph.node_count() ||
      table.reference_offsets.size() != table.size() + 1)
    return make_error(ErrorCode::InvalidArgument, "the table's slots or references do not match the graph");
  try {
    auto slots = std::make_shared<std::vector<uint32_t>>();
    detail::assign_huge(*slots, graph.edge_count(), kUnknownSlot);
    // Every reference resolved (the usual case): a node's first successors are its references
    // in the table's order, so their slots are copied as they are, without looking up each
    // target's address (a cache miss per edge).
    const bool all_resolved = graph.stats().unresolved_references == 0;
    for (NodeIndex v = 0; v < graph.node_count(); ++v) {
      const auto successors = graph.successors(v);
      const uint64_t base = graph.first_edge(v);
      const uint64_t first = table.reference_offsets[v];
      const uint64_t count = table.reference_offsets[v + 1] - first;
      if (all_resolved && count <= successors.size()) {
        std::copy_n(table.reference_slots.begin() + static_cast<std::ptrdiff_t>(first), count,
                    slots->begin() + static_cast<std::ptrdiff_t>(base));
        continue;
      }
      size_t j = 0;
      // The graph keeps the table's order of resolved references, so the j-th successor is the
      // next reference whose target is that object; unresolved references are skipped.
      for (uint64_t r = table.reference_offsets[v]; r < table.reference_offsets[v + 1] && j < successors.size(); ++r) {
        if (graph.address(successors[j]) != table.reference_targets[r]) continue;
        (*slots)[base + j] = table.reference_slots[r];
        ++j;
      }
    }
    out.slots_ = *slots;
    out.storage_ = std::move(slots);
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory aligning reference slots");
  }
  return out;
}

uint32_t EdgeSlots::slot_of(const HeapGraph& graph, NodeIndex from, NodeIndex to) const noexcept {
  if (slots_.empty()) return kUnknownSlot;
  const auto successors = graph.successors(from);
  const uint64_t base = graph.first_edge(from);
  for (size_t j = 0; j < successors.size(); ++j)
    if (successors[j] == to && base + j < slots_.size()) return slots_[base + j];
  return kUnknownSlot;
}

uint32_t EdgeSlots::slot_at(const HeapGraph& graph, NodeIndex from, size_t j) const noexcept {
  const uint64_t edge = graph.first_edge(from) + j;
  return j < graph.successors(from).size() && edge < slots_.size() ? slots_[edge] : kUnknownSlot;
}

HopField EdgeNamer::name_edge(NodeIndex from, NodeIndex to) const {
  if (slots_.empty()) return name_slot_of(from, kUnknownSlot, UnnamedReason::NoSlots);
  return name_slot_of(from, slots_.slot_of(graph_, from, to), UnnamedReason::SlotUnknown);
}

HopField EdgeNamer::name_successor(NodeIndex from, size_t j) const {
  if (slots_.empty()) return name_slot_of(from, kUnknownSlot, UnnamedReason::NoSlots);
  return name_slot_of(from, slots_.slot_at(graph_, from, j), UnnamedReason::SlotUnknown);
}

HopField EdgeNamer::name_slot_of(NodeIndex from, uint32_t slot, UnnamedReason unknown_reason) const {
  if (slot == kUnknownSlot) return name_slot_at(0, 0, slot, unknown_reason);
  return name_slot_at(graph_.address(from), graph_.type_id(from), slot, unknown_reason);
}

HopField EdgeNamer::name_slot_at(uint64_t from_address, uint32_t from_type, uint32_t slot,
                                 UnnamedReason unknown_reason) const {
  HopField hop;
  if (slot == kUnknownSlot) {
    hop.reason = unknown_reason;
    return hop;
  }
  // A static's slot lives in a statics array: its address names it better than an index.
  const uint64_t address = from_address + slot;
  auto it = std::lower_bound(statics_.begin(), statics_.end(), address,
                             [](const StaticSlot& s, uint64_t a) { return s.address < a; });
  if (it != statics_.end() && it->address == address) {
    hop.kind = EdgeNameKind::Field;
    hop.is_static = true;
    hop.text = it->name;
    return hop;
  }
  const TypeLayout* layout = names_.find_layout(from_type);
  if (!layout) {
    hop.reason = UnnamedReason::NoLayout;
    return hop;
  }
  EdgeName name = name_slot(layout, slot);
  if (name.kind == EdgeNameKind::Unknown) {
    hop.reason = UnnamedReason::NoField;
    return hop;
  }
  hop.kind = name.kind;
  hop.text = std::move(name.text);
  return hop;
}

std::vector<HopField> EdgeNamer::name_path(std::span<const NodeIndex> nodes) const {
  std::vector<HopField> hops(nodes.size());
  for (size_t h = 1; h < nodes.size(); ++h) hops[h] = name_edge(nodes[h - 1], nodes[h]);
  return hops;
}

std::string_view unnamed_reason_text(UnnamedReason reason) noexcept {
  switch (reason) {
    case UnnamedReason::None: return "";
    case UnnamedReason::NoSlots: return "the recording has no reference slots for this GC";
    case UnnamedReason::SlotUnknown: return "the recorder did not find the reference in its object";
    case UnnamedReason::NoLayout: return "no field layout was recorded for the referencing type";
    case UnnamedReason::NoField: return "no recorded field lies at the reference's offset";
  }
  return "";
}

}  // namespace gcsnap
