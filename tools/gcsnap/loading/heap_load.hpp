#pragma once
// Shared by the commands, the report and the exports: one GC's heap (the library's GcHeap)
// with the GC it was selected as, and --no-cache.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loading/gc_select.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/heap_points.hpp"
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
  bool supported = false;    ///< the command can answer from the index
  bool no_cache = false;     ///< --no-cache
  bool never_build = false;  ///< use a valid index when there is one, else decode: build none
};

/// Add `--no-cache` to a subcommand.
void add_no_cache_option(CLI::App& cmd, bool& no_cache);

/// Print "gcsnap: <stage>..." progress lines on stderr when it is a terminal; nothing otherwise.
IndexProgress terminal_progress(const std::string& file);

/// One GC's heap (GcHeap) with the GC it was selected as, and the CLI's way to fail: the
/// library's errors become a CliError naming the file. Not movable (GcHeap).
struct LoadedHeap : GcHeap {
  SelectedGc sel;

  /// The dominator tree over strong roots (or all roots with include_weak): the index's when
  /// there is one, else computed once. Throws CliError naming the file.
  const DominatorTree& dominators(bool include_weak);
  /// The type histogram as build_type_histogram(graph, &dominators(include_weak), options)
  /// would return it (from the index when it has it). Throws CliError naming the file.
  std::vector<TypeStats> type_histogram(bool include_weak, const TypeHistogramOptions& options);
  /// Objects and bytes not reachable from strong roots (or any root with include_weak).
  std::pair<uint64_t, uint64_t> unreachable(bool include_weak);
  /// "note:" lines about what the graph could not resolve or the recorder dropped.
  std::vector<std::string> notes() const;

  /// Load the GC of sel as OPTIONS say; throws CliError naming the file.
  void load_or_fail(const GcHeapOptions& options);
};

/// Open SPEC (FILE or FILE:N, or --gc), read the GC's heap walk and build the graph, with what
/// NEEDS asks for (GcHeapOptions::needs: the reverse CSR with kNeedPredecessors, the edges'
/// slots and the statics with kNeedFieldNames, 4 B more per reference). Throws CliError naming
/// the file. With INDEX.supported and not no_cache, what NEEDS asks for comes from the GC's
/// analysis index, built and saved first when there is none (or it is stale or damaged; a
/// directory that cannot be written to only means it is not saved).
std::unique_ptr<LoadedHeap> load_heap(const std::string& spec, std::optional<uint64_t> gc, HeapNeeds needs,
                                      const IndexChoice& index = {});

/// The GC of SPEC (as load_heap) for a few objects' answers from its valid analysis index.
struct IndexedPoints {
  std::unique_ptr<LoadedHeap> heap;     ///< the GC selected, with its names only
  std::unique_ptr<HeapPoints> points;   ///< null when the GC has no valid index
};

/// Open SPEC's GC (FILE or FILE:N, or --gc) for point queries from its valid analysis index
/// (HeapPoints with IndexUse::OnlyExisting: never built, never the recording) and read its
/// names when it has one. Throws CliError naming the file.
IndexedPoints open_indexed_points(const std::string& spec, std::optional<uint64_t> gc);

/// Return the node of the object at address; throws CliError(kExitUsage) naming the file
/// and GC, and the containing object when the address points inside one.
NodeIndex find_object_or_fail(const LoadedHeap& heap, uint64_t address);

}  // namespace gcsnap::cli
