// gcsnap export: one GC's heap for the tools people already use. --to heapsnapshot writes the
// V8 heap snapshot JSON (Chrome DevTools' Memory panel, memlab); --to dot writes the retention
// paths of one object or type as a Graphviz digraph; --to parquet writes every GC of any number of
// recordings as Parquet tables (export/parquet_export.hpp).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "export/dot_export.hpp"
#include "gcsnap/retention.hpp"
#include "loading/gc_select.hpp"
#include "loading/heap_load.hpp"
#include "export/heapsnapshot_export.hpp"
#include "export/parquet_export.hpp"
#include "export/pprof_alloc_export.hpp"
#include "export/pprof_export.hpp"
#include "output/output.hpp"
#include "output/output_file.hpp"
#include "platform/console.hpp"
#include "commands/type_filter.hpp"

namespace gcsnap::cli {

namespace {

struct ExportOptions {
  std::vector<std::string> files;
  std::string file;  // files[0], for the exports of one GC
  std::optional<uint64_t> gc;
  std::string to;
  std::string output;
  std::string object;
  std::string type;
  size_t limit = 10;
  bool include_weak = false;
  bool no_fold = false;
  std::string host;
  std::string process;
  uint64_t row_group_rows = 1u << 20;
  std::vector<std::string> tables;
  bool no_cache = false;
  bool suspects = false;
  std::string profile = "heap";
};

void run_heapsnapshot(const ExportOptions& opt) {
  if (!opt.object.empty() || !opt.type.empty())
    throw CliError("export: --object and --type are for --to dot; a heapsnapshot holds the whole heap", kExitUsage);
  if (opt.output.empty() && is_terminal(stdout))
    throw CliError("export: a heapsnapshot is large JSON: give -o FILE (or -o - to write it to a pipe)", kExitUsage);
  const auto heap = load_heap(opt.file, opt.gc, kNeedGraph | kNeedFieldNames);
  OutputFile out(opt.output.empty() ? "-" : opt.output);
  const HeapSnapshotCounts counts = write_heapsnapshot(*heap, out);
  out.commit();
  std::fprintf(stderr, "%s",
               fmt::format("gcsnap: GC {} of {}: {} nodes ({} objects, {} synthetic root nodes), {} edges ({} "
                           "references, {} of them named; {} root edges) -> {}\n",
                           heap->sel.number(), heap->sel.file, counts.nodes, counts.nodes - counts.synthetic_nodes,
                           counts.synthetic_nodes, counts.edges, counts.edges - counts.root_edges, counts.named_edges,
                           counts.root_edges, out.is_stdout() ? "standard output" : out.path())
                   .c_str());
  for (const std::string& note : heap->notes()) std::fprintf(stderr, "note: %s\n", note.c_str());
}

// The allocation profile reads only the samples and the ranges: no heap walk is loaded.
void run_alloc_pprof(const ExportOptions& opt) {
  const SelectedGc sel = open_selected_gc(opt.file, opt.gc, GcNeed::Any);
  OutputFile out(opt.output.empty() ? "-" : opt.output);
  const AllocPprofCounts counts = write_alloc_pprof(sel.file, *sel.recording, sel.index, out);
  out.commit();
  std::fprintf(stderr, "%s",
               fmt::format("gcsnap: GC {} of {}: allocation profile of {} samples ({} alive at GC {}) in {} stacks of {} "
                           "functions -> {}\n",
                           sel.number(), sel.file, counts.samples, counts.live, sel.number(), counts.stacks,
                           counts.functions, out.is_stdout() ? "standard output" : out.path())
                   .c_str());
}

void run_pprof(const ExportOptions& opt) {
  if (!opt.object.empty() || !opt.type.empty())
    throw CliError("export: --object and --type are for --to dot; a retention profile holds the whole heap", kExitUsage);
  if (opt.output.empty() && is_terminal(stdout))
    throw CliError("export: a pprof profile is gzipped binary: give -o FILE.pb.gz (or -o - to write it to a pipe)",
                   kExitUsage);
  if (opt.profile == "alloc") return run_alloc_pprof(opt);
  const auto heap = load_heap(opt.file, opt.gc, kNeedGraph | kNeedPredecessors | kNeedFieldNames);
  OutputFile out(opt.output.empty() ? "-" : opt.output);
  const PprofCounts counts = write_pprof(*heap, out);
  out.commit();
  std::fprintf(stderr, "%s",
               fmt::format("gcsnap: GC {} of {}: retention profile of {} objects ({} bytes) in {} stacks of {} frames -> {}\n",
                           heap->sel.number(), heap->sel.file, counts.objects, counts.bytes, counts.samples,
                           counts.functions, out.is_stdout() ? "standard output" : out.path())
                   .c_str());
}

void run_dot(const ExportOptions& opt) {
  if (opt.object.empty() == opt.type.empty())
    throw CliError("export --to dot: give either --object ADDRESS or --type TYPE", kExitUsage);
  const auto heap = load_heap(opt.file, opt.gc, kNeedGraph | kNeedFieldNames);
  const RetentionOptions retention{opt.include_weak, opt.limit};
  std::vector<RetentionPath> paths;
  std::vector<NodeIndex> targets;
  if (!opt.object.empty()) {
    const NodeIndex target = find_object_or_fail(*heap, parse_address(opt.object));
    auto result = find_retention_paths(heap->graph, target, retention);
    if (!result) fail_on(heap->sel.file, result.error());
    if (result->reachability != Reachability::Strong)
      throw CliError(fmt::format("{}: {} is not {}reachable from a root in GC {}: no retention path to draw",
                                 heap->sel.file, opt.object, opt.include_weak ? "" : "strongly ", heap->sel.number()),
                     kExitProblems);
    paths = std::move(result->paths);
    targets.push_back(target);
  } else {
    const std::vector<NodeIndex> instances = objects_of_type(
        heap->graph, heap->names, opt.type,
        fmt::format("{}: no object in GC {} has a type named or containing", heap->sel.file, heap->sel.number()));
    auto tree = ShortestPathTree::compute(heap->graph, retention);
    if (!tree) fail_on(heap->sel.file, tree.error());
    for (NodeIndex v : instances)
      if (tree->is_reached(v)) paths.push_back(tree->path_to(v));
    if (paths.empty())
      throw CliError(fmt::format("{}: none of the {} objects matching '{}' is reachable from a root in GC {}",
                                 heap->sel.file, instances.size(), opt.type, heap->sel.number()), kExitProblems);
    std::stable_sort(paths.begin(), paths.end(),
                     [](const RetentionPath& a, const RetentionPath& b) { return a.hops() < b.hops(); });
    if (opt.limit && paths.size() > opt.limit) paths.resize(opt.limit);
    for (const RetentionPath& p : paths) targets.push_back(p.nodes.back());
  }
  OutputFile out(opt.output.empty() ? "-" : opt.output);
  write_dot(*heap, paths, targets, out, !opt.no_fold);
  out.commit();
}

void run_parquet(const ExportOptions& opt) {
  if (opt.gc || !opt.object.empty() || !opt.type.empty())
    throw CliError("export --to parquet: --gc, --object and --type do not apply: every GC of every file is exported",
                   kExitUsage);
  for (const std::string& f : opt.files)
    if (parse_gc_spec(f).gc)
      throw CliError(fmt::format("export --to parquet: {}: give the file without :GC (every GC is exported)", f),
                     kExitUsage);
  if (opt.row_group_rows == 0) throw CliError("export: --row-group-rows must be at least 1", kExitUsage);
  // The suspects table costs a `gcsnap leaks` run over every walk (more than the other tables
  // together): it is written when asked for.
  std::vector<std::string> tables = opt.tables;
  if (tables.empty()) tables = {"gcs", "objects", "references", "roots", "types", "alloc_samples"};
  if (opt.suspects && std::find(tables.begin(), tables.end(), "suspects") == tables.end())
    tables.push_back("suspects");
  run_parquet_export(
      ParquetExportOptions{opt.files, opt.output, opt.host, opt.process, opt.row_group_rows, tables, opt.no_cache});
}

void run_export(ExportOptions& opt) {
  if (opt.to == "parquet") return run_parquet(opt);
  if (opt.files.size() != 1)
    throw CliError(fmt::format("export --to {}: give one recording (several are for --to parquet)", opt.to), kExitUsage);
  opt.file = opt.files[0];
  if (opt.to == "heapsnapshot") run_heapsnapshot(opt);
  else if (opt.to == "pprof") run_pprof(opt);
  else run_dot(opt);
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto opt = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand("export", "Export heaps for other tools: V8 heapsnapshot (Chrome DevTools, memlab), "
                                           "Graphviz dot of retention paths, Parquet tables (DuckDB, Spark), "
                                           "pprof retention profile");
  cmd->add_option("file", opt->files,
                  "recording, as FILE or FILE:GC (default GC: the last with a heap walk); parquet: FILE...")
      ->required();
  add_gc_option(*cmd, opt->gc);
  cmd->add_option("--to", opt->to, "heapsnapshot: the whole heap as V8 heap snapshot JSON; dot: retention paths; parquet: tables of every GC (-o DIR); pprof: a retention profile")
      ->required()
      ->check(CLI::IsMember({"heapsnapshot", "dot", "parquet", "pprof"}));
  cmd->add_option("-o,--output", opt->output, "write here (default: standard output; '-' too)");
  cmd->add_option("--object", opt->object, "dot: the retention paths of the object at this address (hex)");
  cmd->add_option("--type", opt->type, "dot: the paths to instances of this type (nearest first)");
  cmd->add_option("--limit", opt->limit, "dot: at most N paths (default 10; 0: all)");
  cmd->add_flag("--include-weak", opt->include_weak, "dot: let weak roots (weak handles) retain objects");
  cmd->add_flag("--no-fold", opt->no_fold,
                "dot: draw every hop (by default a chain of one type and field is one bold edge with a count)");
  cmd->add_option("--host", opt->host, "parquet: the host= of the tables (default: unknown)");
  cmd->add_option("--process", opt->process, "parquet: the process= of every file (default: NAME-PID from its name)");
  cmd->add_option("--tables", opt->tables, "parquet: write only these tables (default: gcs objects references roots "
                                           "types, and alloc_samples for a recording with allocation samples; "
                                           "suspects too with --suspects)")
      ->delimiter(',');
  cmd->add_flag("--suspects", opt->suspects,
                "parquet: write the suspects table too (what `gcsnap leaks` reports: another pass over every walk)");
  cmd->add_option("--profile", opt->profile,
                  "pprof: heap (default: the retention profile of the heap walk) or alloc (the sampled allocations "
                  "with their stacks: allocated and still-alive estimates)")
      ->check(CLI::IsMember({"heap", "alloc"}));
  add_no_cache_option(*cmd, opt->no_cache);
  cmd->add_option("--row-group-rows", opt->row_group_rows, "parquet: rows per row group (default 1048576)");
  cmd->callback([opt] { run_export(*opt); });
}

}  // namespace gcsnap::cli
