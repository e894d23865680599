// gcsnap index: build the analysis index (format-spec.md §12) of snapshot GCs ahead of time,
// so that later commands map it instead of decoding and recomputing.
#include <sys/stat.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "gc_select.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/enum_names.hpp"
#include "heap_load.hpp"
#include "output.hpp"

namespace gcsnap::cli {

namespace {

struct IndexOptions {
  std::string file;
  std::optional<uint64_t> gc;
  bool all = false;
  Format format = Format::Table;
};

std::string status_of(const OpenedGcIndex& opened) {
  if (opened.source == IndexSource::Read) return "up to date";
  switch (opened.rejected.code) {
    case ErrorCode::Ok: return "built";
    case ErrorCode::InconsistentData: return "rebuilt (stale)";
    case ErrorCode::UnsupportedVersion: return "rebuilt (other version)";
    default: return "rebuilt (damaged)";
  }
}

void run_index(const IndexOptions& opt) {
  if (opt.all && opt.gc) throw CliError("index: --all and --gc cannot be used together", kExitUsage);
  std::vector<size_t> gcs;
  std::string file;
  std::unique_ptr<Recording> rec;
  if (opt.all) {
    const GcSpec spec = parse_gc_spec(opt.file);
    if (spec.gc) throw CliError("index: --all and FILE:N cannot be used together", kExitUsage);
    file = spec.file;
    rec = open_recording(file);
    for (size_t i = 0; i < rec->gcs().size(); ++i)
      if (rec->gcs()[i].has_heap_walk()) gcs.push_back(i);
    if (gcs.empty()) throw CliError(fmt::format("{}: the recording has no GC with a heap walk", file), kExitBadInput);
  } else {
    SelectedGc sel = open_selected_gc(opt.file, opt.gc, GcNeed::HeapWalk);
    file = sel.file;
    rec = std::move(sel.recording);
    gcs.push_back(sel.index);
  }
  Table table("indexes", fmt::format("Analysis indexes of {}", file));
  table.add_column("gc", "GC", ColumnKind::Count).add_column("objects", "OBJECTS", ColumnKind::Count);
  table.add_column("status", "STATUS").add_column("index", "INDEX FILE");
  table.add_column("bytes", "SIZE", ColumnKind::Bytes).add_column("bytes_per_object", "B/OBJECT");
  for (size_t gc : gcs) {
    auto opened = open_gc_index(file, *rec, gc, true, terminal_progress(file));
    if (!opened) fail_on(file, opened.error());
    const uint64_t number = rec->gcs()[gc].info.gc_number;
    const std::string path = gc_index_path(file, number);
    if (opened->source == IndexSource::BuiltKept)
      throw CliError(fmt::format("{}: cannot write {}: {}", file, path, error_text(opened->write_error)),
                     kExitBadInput);
    struct stat st {};
    const uint64_t bytes = ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    const uint64_t objects = opened->index.graph.node_count();
    table.add_row({number, objects, status_of(*opened), path, bytes,
                   // A number in JSON/CSV, rounded to 0.1 so that the table and the machine forms agree.
                   objects ? Cell::real(std::round(10.0 * static_cast<double>(bytes) / static_cast<double>(objects)) / 10.0)
                           : Cell()});
  }
  Report report;
  report.tables.push_back(std::move(table));
  report.notes.push_back("types, dominators and path (and where and roots, when it exists) map the index instead "
                         "of decoding the GC; it is rebuilt when the recording changes and can be deleted at any time");
  print_report(report, opt.format);
}

}  // namespace

void add_index_command(CLI::App& app) {
  auto opt = std::make_shared<IndexOptions>();
  auto* cmd = app.add_subcommand("index", "Build the analysis index of snapshot GCs (FILE.N.gcidx) for fast answers");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (default GC: the last with a heap walk)")->required();
  add_gc_option(*cmd, opt->gc);
  cmd->add_flag("--all", opt->all, "every GC with a heap walk");
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_index(*opt); });
}

}  // namespace gcsnap::cli
