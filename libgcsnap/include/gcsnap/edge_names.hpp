#pragma once
/// Naming the references of retention paths: which field, array element or static holds
/// each hop (format-spec.md §6.12-§6.14; docs/cli.md "Field names").

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/field_layout.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// The slot of every resolved edge of a HeapGraph, parallel to its successors (4 B per edge).
class EdgeSlots {
 public:
  /// Align TABLE's reference_slots with GRAPH's edges (GRAPH was built from TABLE). An edge the
  /// table has no slot for gets kUnknownSlot; a table without slots gives an empty EdgeSlots.
  /// Call it before the table's references are released. Errors: OutOfMemory.
  [[nodiscard]] static Result<EdgeSlots> build(const ObjectTable& table, const HeapGraph& graph);

  bool empty() const noexcept { return slots_.empty(); }
  /// Return the slot of the first edge from FROM to TO, or kUnknownSlot.
  uint32_t slot_of(const HeapGraph& graph, NodeIndex from, NodeIndex to) const noexcept;
  /// Return the slot of FROM's J-th successor edge, or kUnknownSlot. O(1): what a walk over
  /// every edge (an export) needs, where slot_of would cost the degree per edge.
  uint32_t slot_at(const HeapGraph& graph, NodeIndex from, size_t j) const noexcept;

 private:
  friend struct detail::AnalysisIndexAccess;
  std::span<const uint32_t> slots_;            // in storage_: owned, or a mapped analysis index
  std::shared_ptr<const void> storage_;
};

/// Why an edge could not be named.
enum class UnnamedReason : uint8_t {
  None = 0,
  NoSlots = 1,       ///< the recording has no reference slots for this GC (1.0 file, other writer)
  SlotUnknown = 2,   ///< the recorder could not find this reference in its object's memory
  NoLayout = 3,      ///< no field layout was recorded for the source type
  NoField = 4,       ///< the layout has no field at the slot (e.g. a field of an unresolved struct)
};
/// Return a short sentence saying why an edge has no name ("" for UnnamedReason::None).
std::string_view unnamed_reason_text(UnnamedReason reason) noexcept;

/// The name of one edge of a path.
struct HopField {
  EdgeNameKind kind = EdgeNameKind::Unknown;
  bool is_static = false;  ///< the slot is a static field's (text is "Namespace.Class.Field")
  std::string text;        ///< "_items", "[17]", "[17].value", "Zoo.Cache.Orders"; empty when unknown
  UnnamedReason reason = UnnamedReason::None;
};

/// Names edges from the graph, the recording's layouts, the edge slots and the GC's statics.
class EdgeNamer {
 public:
  /// STATICS must be sorted by address (as Recording::read_static_slots returns them).
  EdgeNamer(const HeapGraph& graph, const NameTable& names, const EdgeSlots& slots, std::span<const StaticSlot> statics)
      : graph_(graph), names_(names), slots_(slots), statics_(statics) {}
  /// Name the reference from node FROM to node TO.
  HopField name_edge(NodeIndex from, NodeIndex to) const;
  /// Name FROM's J-th successor edge (graph.successors(from)[j]); O(1) in the degree, and
  /// exact when FROM references the same object from several slots.
  HopField name_successor(NodeIndex from, size_t j) const;
  /// Name every hop of a path: result[h] names the edge into nodes[h] (result[0] is empty).
  std::vector<HopField> name_path(std::span<const NodeIndex> nodes) const;
  /// Name SLOT of the object at FROM_ADDRESS, of type FROM_TYPE, without the graph (a pass over
  /// the edges of an analysis index); kUnknownSlot gives an unnamed hop with UNKNOWN_REASON.
  HopField name_slot_at(uint64_t from_address, uint32_t from_type, uint32_t slot,
                        UnnamedReason unknown_reason) const;

 private:
  HopField name_slot_of(NodeIndex from, uint32_t slot, UnnamedReason unknown_reason) const;
  const HeapGraph& graph_;
  const NameTable& names_;
  const EdgeSlots& slots_;
  std::span<const StaticSlot> statics_;
};

}  // namespace gcsnap
