#pragma once
// `gcsnap report`: the aggregates one recording contributes to the HTML page, as JSON. The page
// carries these, never the object graph, so its size depends on the number of GCs, snapshots
// and types shown, not on the heap's object count (docs/cli.md "report").

#include <cstddef>
#include <string>

namespace gcsnap::cli {

struct ReportLimits {
  size_t types = 300;            ///< types carried with their series (the rest summed as "other")
  size_t dominator_nodes = 1500; ///< dominator tree nodes carried (largest retained first)
  size_t paths = 400;            ///< dominator nodes whose retention path is carried
  size_t suspects = 20;          ///< leak suspects carried (gcsnap leaks' ranking)
  bool fold = true;              ///< fold repeated hops of the suspects' paths (false: every hop)
};

/// Read FILE and return its JSON object for the page: timeline, per-snapshot type series,
/// the last snapshot's types with retained sizes, its dominator tree (pruned) and paths.
/// Throws CliError naming the file on bad input.
std::string build_report_data(const std::string& file, const ReportLimits& limits);

}  // namespace gcsnap::cli
