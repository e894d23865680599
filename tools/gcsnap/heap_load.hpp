#pragma once
// Shared by path, types and dominators: load one GC's heap walk and build its graph.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gc_select.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

/// One GC's objects, roots and names, with its heap graph. Not movable: the graph points
/// into `objects`.
struct LoadedHeap {
  SelectedGc sel;
  ObjectTable objects;
  RootTable roots;
  NameTable names;
  DependentHandleTable dependent;  ///< empty, and has_dependent false, for 1.0 recordings
  bool has_dependent = false;      ///< the GC's block has a dependent-handles section
  HeapGraph graph;
  /// Loaded only with `fields`: the slot of each edge and the GC's statics, for field names.
  EdgeSlots edge_slots;
  std::vector<StaticSlot> statics;
  std::string static_names;  ///< storage of statics' names

  /// Names the edges of this heap (field names need load_heap's `fields`).
  EdgeNamer edge_namer() const { return EdgeNamer(graph, names, edge_slots, statics); }

  std::string_view type_name(NodeIndex node) const { return names.type_name(graph.type_id(node)); }
  /// "note:" lines about what the graph could not resolve or the recorder dropped.
  std::vector<std::string> notes() const;
};

/// Open SPEC (FILE or FILE:N, or --gc), read the GC's heap walk and build the graph (with
/// the reverse CSR when `reverse`, with the edges' slots and the statics when `fields`: 4 B
/// more per reference). Throws CliError naming the file.
std::unique_ptr<LoadedHeap> load_heap(const std::string& spec, std::optional<uint64_t> gc, bool reverse,
                                      bool fields = false);

/// Return the node of the object at address; throws CliError(kExitUsage) naming the file
/// and GC, and the containing object when the address points inside one.
NodeIndex find_object_or_fail(const LoadedHeap& heap, uint64_t address);

}  // namespace gcsnap::cli
