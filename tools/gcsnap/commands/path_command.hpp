#pragma once
// What the files of `gcsnap path` share: its options, the paths it prints and how it prints
// them (path_report.cpp), and the answer from the index's pieces (path_from_index.cpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gcsnap/retention.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {


struct PathOptions {
  std::string file;
  std::string object;
  std::optional<uint64_t> gc;
  std::string type;
  bool all = false;
  size_t limit = 0;  // 0: not given
  bool include_weak = false;
  bool no_cache = false;
  bool no_fold = false;
  bool group = false;
  bool no_group = false;
  Format format = Format::Table;
};

// One path to print, with what it leads to.
struct FoundPath {
  RetentionPath path;
  Reachability reachability;
};

/// Return whether the table folds repeated hops; CSV and JSON list every hop for tools (or --no-fold).
bool fold_hops(const PathOptions& opt);

/// Return whether to group --type's instances: --group, or by default in the table when no count of
/// paths is asked for (and the instances turn out to be held in more than one way).
bool group_paths(const PathOptions& opt);

/// Return the most paths to print: 0 for --all, else --limit or 1.
size_t max_paths(const PathOptions& opt);

/// Print RESULT, the paths to the object at ADDRESS (WHAT names it) and where it was allocated
/// if it was sampled, and fail as the reachability says.
void report_object(const LoadedHeap& heap, const RetentionResult& result, uint64_t address, const std::string& what,
                   const PathOptions& opt);

/// Print FOUND, the paths to the nearest of INSTANCES objects of --type (REACHABLE of them
/// reachable), and fail when none is reachable.
void report_type(const LoadedHeap& heap, const std::vector<FoundPath>& found, size_t instances, size_t reachable,
                 const PathOptions& opt);

/// Answer from a valid index read a piece at a time (format-spec.md §12.4 item 7), so that the
/// cost follows the paths shown, not the heap. Return false when there is no valid index or its
/// pieces cannot answer: the caller loads the whole heap (and builds the index), which answers
/// everything else: --all, --limit, --group and --include-weak need every object's paths.
bool run_from_pieces(const PathOptions& opt);

}  // namespace gcsnap::cli
