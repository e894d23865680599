// gcsnap index: build the analysis index (format-spec.md §12) of snapshot GCs ahead of time,
// so that later commands map it instead of decoding and recomputing.
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "loading/index_orphans.hpp"
#include "commands/commands.hpp"
#include "loading/gc_select.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/enum_names.hpp"
#include "loading/heap_load.hpp"
#include "commands/summary_line.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

struct IndexOptions {
  std::string file;
  std::optional<uint64_t> gc;
  bool all = false;
  bool check = false;
  Format format = Format::Table;
};

std::string status_of(const EnsuredAnalysisIndex& opened) {
  if (opened.source == IndexSource::Read) return "up to date";
  switch (opened.rejected.code) {
    case ErrorCode::Ok: return "built";
    case ErrorCode::InconsistentData: return "rebuilt (stale)";
    case ErrorCode::UnsupportedVersion: return "rebuilt (other version)";
    default: return "rebuilt (damaged)";
  }
}

// --check: every byte of each index (every array's checksum and rules, the padding), nothing
// rebuilt. Commands check only the arrays they use, so this is how a damaged array that no
// command has touched yet is found. Exit 3 when any index is not valid.
void check_indexes(const std::string& file, const Recording& rec, const std::vector<size_t>& gcs, Format format) {
  Table table("indexes", fmt::format("Analysis indexes of {}", file));
  table.add_column("gc", "GC", ColumnKind::Count).add_column("status", "STATUS").add_column("index", "INDEX FILE");
  size_t bad = 0;
  for (size_t gc : gcs) {
    const uint64_t number = rec.gcs()[gc].info.gc_number;
    const std::string path = analysis_index_path(file, number);
    auto checked = check_analysis_index(file, rec, gc);
    if (!checked) fail_on(file, checked.error());
    std::string status = "valid";
    if (checked->problem.code != ErrorCode::Ok) {
      ++bad;
      switch (checked->problem.code) {
        case ErrorCode::NotFound: status = "missing"; break;
        case ErrorCode::InconsistentData: status = "stale"; break;
        case ErrorCode::UnsupportedVersion: status = "other version"; break;
        default: status = fmt::format("damaged ({})", checked->problem.detail);
      }
    }
    table.add_row({number, status, path});
  }
  Report report;
  report.tables.push_back(std::move(table));
  print_report(report, format);
  if (bad)
    throw CliError(fmt::format("{}: {} of {} analysis indexes not valid (a command rebuilds them when it needs them)",
                               file, bad, gcs.size()),
                   kExitBadInput);
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
  if (opt.check) return check_indexes(file, *rec, gcs, opt.format);
  uint64_t total_bytes = 0;
  for (size_t gc : gcs) {
    auto opened = ensure_analysis_index(file, *rec, gc, terminal_progress(file));
    if (!opened) fail_on(file, opened.error());
    const uint64_t number = rec->gcs()[gc].info.gc_number;
    const std::string path = analysis_index_path(file, number);
    if (opened->source == IndexSource::BuiltKept)
      throw CliError(fmt::format("{}: cannot write {}: {}", file, path, error_text(opened->write_error)),
                     kExitBadInput);
    std::error_code size_error;
    const uint64_t file_bytes = std::filesystem::file_size(path, size_error);
    const uint64_t bytes = size_error ? 0 : file_bytes;
    total_bytes += bytes;
    const uint64_t objects = opened->objects;
    table.add_row({number, objects, status_of(*opened), path, bytes,
                   // A number in JSON/CSV, rounded to 0.1 so that the table and the machine forms agree.
                   objects ? Cell::real(std::round(10.0 * static_cast<double>(bytes) / static_cast<double>(objects)) / 10.0)
                           : Cell()});
  }
  Report report;
  report.tables.push_back(std::move(table));
  if (const size_t removed = remove_orphan_indexes(file, *rec))
    report.notes.push_back(fmt::format("removed {} analysis index file(s) of GCs this recording does not have (left by "
                                       "an earlier recording at this path)", removed));
  report.notes.push_back(fmt::format("{} of analysis index beside the {} recording ({})", format_bytes(total_bytes),
                                     format_bytes(rec->file_size()), size_ratio(total_bytes, rec->file_size())));
  report.notes.push_back("types, dominators and path (and where, roots, verify, diff and leaks, when it exists) read the index "
                         "instead of decoding the GC; it is rebuilt when the recording changes and can be deleted at any time");
  print_report(report, opt.format);
}

}  // namespace

void add_index_command(CLI::App& app) {
  auto opt = std::make_shared<IndexOptions>();
  auto* cmd = app.add_subcommand("index", "Build the analysis index of snapshot GCs (FILE.N.gcidx) for fast answers");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (default GC: the last with a heap walk)")->required();
  add_gc_option(*cmd, opt->gc);
  cmd->add_flag("--all", opt->all, "every GC with a heap walk");
  cmd->add_flag("--check", opt->check, "check every byte of the existing indexes, rebuild nothing (exit 3 if any is not valid)");
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_index(*opt); });
}

}  // namespace gcsnap::cli
