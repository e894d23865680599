// Export to Parquet: check first, then write. A recording that fails `verify` must export
// nothing, so every file is verified before the first byte is written.
#include "export/parquet_export.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "loading/gc_select.hpp"
#include "loading/gc_verify.hpp"
#include "loading/heap_load.hpp"
#include "loading/leak_load.hpp"
#include "export/parquet_streamed.hpp"
#include "export/parquet_tables.hpp"
#include "gcsnap/alloc_samples.hpp"
#include "gcsnap/heap_columns.hpp"
#include "gcsnap/version.hpp"
#include "errors/cli_error.hpp"

namespace gcsnap::cli {

namespace {

std::string sanitize_key(std::string_view text) {
  std::string out(text.empty() ? "unknown" : text);
  for (char& c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  return out;
}

// The same checks as `gcsnap verify` (decode every GC; the file must end complete). A walk's
// valid analysis index that vouches for its block (built by decoding exactly these bytes) spares
// the second decode, as in `gcsnap verify` (format-spec.md §12.4); none is built here.
void verify_or_fail(const std::string& file, bool no_cache) {
  auto rec = open_recording(file);
  const auto nothing = [&](const std::string& why) {
    throw CliError(fmt::format("{}: {}; nothing exported ('gcsnap verify {}' says more)", file, why, file),
                   kExitBadInput);
  };
  if (rec->end() != FileEnd::Complete)
    nothing(fmt::format("the recording ends {} after {} complete GCs", file_end_name(rec->end()), rec->gcs().size()));
  for (size_t i = 0; i < rec->gcs().size(); ++i) {
    Status s = verify_recording_gc(file, *rec, i, no_cache);
    if (!s.is_ok()) nothing(describe_error(fmt::format("GC {}", rec->gcs()[i].info.gc_number), s.error()));
  }
}

// Whether any GC block of REC holds allocation samples (format-spec.md §6.18).
bool has_alloc_samples(const std::string& file, const Recording& rec) {
  for (size_t i = 0; i < rec.gcs().size(); ++i) {
    auto samples = read_alloc_samples(rec, i);
    if (!samples) fail_on(file, samples.error());
    if (!samples->empty()) return true;
  }
  return false;
}

// The files of FILE's tables; alloc_samples only for a recording that has samples (no empty
// table for every recording made before them).
std::vector<std::string> table_paths(const ParquetExportOptions& opt, const std::string& file, bool with_samples) {
  std::vector<std::string> paths;
  const std::string host = sanitize_key(opt.host.empty() ? "unknown" : opt.host);
  const std::string process = opt.process.empty() ? process_key_of(file) : sanitize_key(opt.process);
  for (const char* table : kParquetTables) {
    if ((!opt.tables.empty() && std::find(opt.tables.begin(), opt.tables.end(), table) == opt.tables.end()) ||
        (!with_samples && table == std::string_view(kParquetTables[kTableAllocSamples]))) {
      paths.emplace_back();
      continue;
    }
    const std::filesystem::path dir = std::filesystem::path(opt.dir) / fmt::format("table={}", table) /
                                      fmt::format("host={}", host) / fmt::format("process={}", process) /
                                      fmt::format("recording={}", recording_key_of(file));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw CliError(fmt::format("{}: cannot create the directory: {}", dir.string(), ec.message()), kExitBadInput);
    paths.push_back((dir / "part-0.parquet").string());
  }
  return paths;
}

// Walk I's tables from the GC's analysis index, piece by piece. False when it has no valid
// index: the caller decodes the heap instead (building an index first would cost more time than
// the decode and hold as much memory while it is built).
bool add_walk_from_index(const std::string& file, const Recording& rec, size_t i, RecordingTables& tables,
                         ObjectLineage& lineage) {
  GcHeapOptions options;
  options.index = IndexUse::OnlyExisting;
  // The histogram and the statics (for field names); the other arrays are read piece by piece.
  options.needs = kNeedHistogram | kNeedStatics;
  auto heap = value_or_fail(GcHeap::open(file, rec, i, options), file);
  const uint64_t gc = rec.gcs()[i].info.gc_number;
  if (!heap || !heap->is_from_index() || !HeapColumns::open(*heap)) return false;
  if (tables.has_table(kTableObjects)) add_index_lineage(file, *heap, rec, i, lineage);
  tables.add_indexed_heap(file, *heap, static_cast<int64_t>(gc), lineage);
  return true;
}

// Walk I's tables from its heap decoded whole (--no-cache, or no index).
void add_walk_decoded(const std::string& file, const Recording& rec, size_t i, RecordingTables& tables,
                      ObjectLineage& lineage) {
  auto heap = load_heap(file, rec.gcs()[i].info.gc_number, kNeedGraph | kNeedPredecessors | kNeedFieldNames);
  if (tables.has_table(kTableObjects)) {
    const auto a = heap->graph.addresses();
    size_t v = 0;
    Status s = lineage.next_walk(rec, i, [&](uint64_t& address, Generation& generation) {
      if (v == a.size()) return false;
      address = a[v];
      generation = heap->generations[v++];
      return true;
    });
    if (!s.is_ok()) fail_on(file, s.error());
  }
  tables.add_heap(*heap, lineage);
}

void export_one(const ParquetExportOptions& opt, const std::string& file, const parquet::WriterOptions& wopt) {
  const auto start = std::chrono::steady_clock::now();
  auto rec = open_recording(file);
  RecordingTables tables(table_paths(opt, file, has_alloc_samples(file, *rec)), wopt);
  size_t walks = 0;
  ObjectLineage lineage(opt.dir);
  for (size_t i = 0; i < rec->gcs().size(); ++i) {
    tables.add_gc(file, *rec, i);
    if (!rec->gcs()[i].has_heap_walk()) continue;
    ++walks;
    if (opt.no_cache || !add_walk_from_index(file, *rec, i, tables, lineage))
      add_walk_decoded(file, *rec, i, tables, lineage);
    rec->release_block_pages(i);  // the recording's pages do not pile up walk after walk
  }
  // The suspects of this recording alone, with `gcsnap leaks`'s default options.
  if (walks && tables.has_table(kTableSuspects)) tables.add_suspects(load_leaks({file}, LeakOptions{})->report);
  if (tables.has_table(kTableAllocSamples))
    tables.add_alloc_samples(file, *rec, rec->last_snapshot().value_or(rec->gcs().size() - 1));
  const std::vector<uint64_t> rows = tables.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string written;
  for (size_t t = 0; t < rows.size(); ++t)
    if (tables.has_table(t)) written += fmt::format("{}{} {}", written.empty() ? "" : ", ", rows[t], kParquetTables[t]);
  std::fprintf(stderr, "%s",
               fmt::format("gcsnap: {}: {} walks; rows: {} -> {} ({:.1f} s)\n", file, walks, written, opt.dir, seconds)
                   .c_str());
}

}  // namespace

std::string recording_key_of(const std::string& file) {
  return sanitize_key(std::filesystem::path(file).stem().string());
}

std::string process_key_of(const std::string& file) {
  // NAME-PID, as gcsnap names files (record: gcsnap-{name}-{pid}.snap; snapshot:
  // gcsnap-NAME-PID-DATE-TIME.snap): without the "gcsnap-" prefix, up to the first "-digits"
  // that ends the stem or is followed by another '-'.
  std::string stem = recording_key_of(file);
  if (stem.rfind("gcsnap-", 0) == 0 && stem.size() > 7) stem.erase(0, 7);
  for (size_t dash = stem.find('-'); dash != std::string::npos; dash = stem.find('-', dash + 1)) {
    size_t end = dash + 1;
    while (end < stem.size() && std::isdigit(static_cast<unsigned char>(stem[end]))) ++end;
    if (end > dash + 1 && (end == stem.size() || stem[end] == '-')) return stem.substr(0, end);
  }
  return stem;
}

void run_parquet_export(const ParquetExportOptions& opt) {
  if (opt.dir.empty() || opt.dir == "-")
    throw CliError("export --to parquet: give -o DIR, the directory to write the tables into", kExitUsage);
  for (const std::string& t : opt.tables)
    if (std::find(std::begin(kParquetTables), std::end(kParquetTables), t) == std::end(kParquetTables))
      throw CliError(fmt::format("export --tables: unknown table '{}' (use gcs, objects, references, roots, types, "
                                 "suspects, alloc_samples)", t), kExitUsage);
  std::set<std::tuple<std::string, std::string>> seen;
  for (const std::string& file : opt.files) {
    const std::string process = opt.process.empty() ? process_key_of(file) : sanitize_key(opt.process);
    if (!seen.emplace(process, recording_key_of(file)).second)
      throw CliError(fmt::format("{}: another file gives the same process={} recording={}: rename one of them",
                                 file, process, recording_key_of(file)),
                     kExitUsage);
  }
  for (const std::string& file : opt.files) verify_or_fail(file, opt.no_cache);
  parquet::WriterOptions wopt;
  wopt.row_group_rows = opt.row_group_rows;
  wopt.created_by = fmt::format("gcsnap version {}", kVersion);
  wopt.key_values = {{"gcsnap.schema_version", std::to_string(kParquetSchemaVersion)}};
  for (const std::string& file : opt.files) export_one(opt, file, wopt);
}

}  // namespace gcsnap::cli
