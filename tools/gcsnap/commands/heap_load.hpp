#pragma once
// Shared by path, types and dominators: load one GC's heap walk and build its graph.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/gc_select.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/type_histogram.hpp"

namespace CLI {
class App;
}

namespace gcsnap::cli {

/// Whether a command answers from the analysis index (format-spec.md §12): the commands that
/// support it take `--no-cache` (answer from the recording alone, read and write no index).
struct IndexChoice {
  bool supported = false;  ///< the command can answer from the index
  bool no_cache = false;   ///< --no-cache
  /// The parts of the index the command uses (only those are checked and mapped).
  IndexParts parts = kIndexAll;
};

/// Add `--no-cache` to a subcommand.
void add_no_cache_option(CLI::App& cmd, bool& no_cache);

/// The GC's analysis index when a valid one exists (never builds one: for commands that are
/// cheap without it, such as where and roots); nullopt with NO_CACHE or when there is none.
std::optional<GcIndex> existing_gc_index(const SelectedGc& sel, bool no_cache, IndexParts parts);
/// The same for GC_INDEX of REC, opened from FILE (commands that walk every GC).
std::optional<GcIndex> existing_gc_index(const std::string& file, const Recording& rec, size_t gc_index,
                                         bool no_cache, IndexParts parts);

/// Print "gcsnap: <stage>..." progress lines on stderr when it is a terminal; nothing otherwise.
IndexProgress terminal_progress(const std::string& file);

/// One GC's objects, roots and names, with its heap graph. Not movable: the graph points
/// into `objects` (or into the mapped index).
struct LoadedHeap {
  SelectedGc sel;
  /// Empty when the heap came from the analysis index: use graph, generation() and
  /// find_containing() instead, which work both ways.
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

  std::span<const Generation> generations;  ///< per node, either way
  /// Set when the heap came from the index: the strong-roots dominator tree and the type
  /// histogram (sorted by type id), already computed.
  std::optional<DominatorTree> indexed_dominators;
  /// Set when the heap came from the index with its shortest-path tree (kIndexPathTree): the
  /// BFS tree over strong roots, already computed.
  std::optional<ShortestPathTree> indexed_paths;
  std::optional<std::vector<TypeStats>> indexed_types;
  /// Set when the heap came from the index: objects and bytes not reachable from strong roots
  /// (the index's header; known even when its dominator tree was not mapped).
  std::optional<std::pair<uint64_t, uint64_t>> indexed_unreachable;
  /// The parts the index gave (kIndexAll when the heap was decoded): without kIndexObjects
  /// the graph has no nodes, so only the histogram and the notes may be used.
  IndexParts parts = kIndexAll;
  std::shared_ptr<const void> index_storage;

  std::string_view type_name(NodeIndex node) const { return names.type_name(graph.type_id(node)); }
  Generation generation(NodeIndex node) const { return generations[node]; }
  /// The dominator tree over strong roots (or all roots with include_weak): the index's when
  /// there is one, else computed once. Throws CliError naming the file.
  const DominatorTree& dominators(bool include_weak);
  /// The type histogram as build_type_histogram(graph, &dominators(include_weak), options)
  /// would return it (from the index when it has it). Throws CliError naming the file.
  std::vector<TypeStats> type_histogram(bool include_weak, const TypeHistogramOptions& options);
  /// The ids of the types in this heap, sorted (from the index's histogram when it has one).
  std::vector<uint32_t> type_ids() const;
  /// Objects and bytes not reachable from strong roots (or any root with include_weak).
  std::pair<uint64_t, uint64_t> unreachable(bool include_weak);
  /// "note:" lines about what the graph could not resolve or the recorder dropped.
  std::vector<std::string> notes() const;

 private:
  std::optional<DominatorTree> computed_dominators_;
  bool computed_include_weak_ = false;
};

/// Open SPEC (FILE or FILE:N, or --gc), read the GC's heap walk and build the graph (with
/// the reverse CSR when `reverse`, with the edges' slots and the statics when `fields`: 4 B
/// more per reference). Throws CliError naming the file.
/// With INDEX.supported and not no_cache, the graph, dominators and histogram come from the
/// GC's analysis index, built and saved first when there is none (or it is stale or damaged;
/// a directory that cannot be written to only means it is not saved); the graph then always
/// has its reverse CSR.
std::unique_ptr<LoadedHeap> load_heap(const std::string& spec, std::optional<uint64_t> gc, bool reverse,
                                      bool fields = false, const IndexChoice& index = {});

/// Return the node of the object at address; throws CliError(kExitUsage) naming the file
/// and GC, and the containing object when the address points inside one.
NodeIndex find_object_or_fail(const LoadedHeap& heap, uint64_t address);

}  // namespace gcsnap::cli
