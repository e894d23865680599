// gcsnap verify FILE: decode and check everything (docs/cli.md "gcsnap verify").
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "output/cli_error.hpp"
#include "commands/commands.hpp"
#include "commands/gc_select.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/reader.hpp"
#include "commands/heap_load.hpp"

namespace gcsnap::cli {
namespace {

struct VerifyOptions {
  std::string file;
  bool no_cache = false;
};

// A valid analysis index of GC I whose block hash equals the block's hash now: it was built
// by decoding exactly these bytes, so the objects passed the reader's checks then and need not
// be decoded again (format-spec.md §12.2, docs/design.md). Never builds an index.
std::optional<AnalysisIndex> vouching_index(const std::string& file, const Recording& r, size_t i, bool no_cache) {
  // The type ids are all verify takes from it (the declared-type check).
  if (no_cache) return std::nullopt;
  auto index = find_analysis_index(file, r, i, kIndexTypeIds);
  if (!index || !index_vouches_for_block(*index, r, i)) return std::nullopt;
  return index;
}

// Exit kExitProblems when the file opens but is not sound; kExitBadInput when it cannot be opened.
void run_verify(const VerifyOptions& o) {
  auto recording = open_recording(o.file);
  const Recording& r = *recording;
  size_t problems = 0;
  auto problem = [&](const std::string& text) {
    std::fflush(stdout);
    fmt::print(stderr, "gcsnap: error: {}\n", text);
    ++problems;
  };
  switch (r.end()) {
    case FileEnd::Complete: break;
    case FileEnd::NoIndex:
      problem(fmt::format("{}: no-index: the file has no index (the writer did not finish); "
                          "{} complete GCs were found by scanning",
                          o.file, r.gcs().size()));
      break;
    case FileEnd::Truncated:
    case FileEnd::Corrupt:
      problem(describe_error(o.file, r.end_error()) +
              fmt::format("; the file ends {} after {} complete GCs", file_end_name(r.end()), r.gcs().size()));
      break;
  }
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    const auto index = vouching_index(o.file, r, i, o.no_cache);
    const std::span<const uint32_t> type_ids = index ? index->graph.type_ids() : std::span<const uint32_t>();
    Status s = r.verify_gc(i, index ? &type_ids : nullptr);
    if (!s.is_ok()) problem(describe_error(fmt::format("{}: GC {}", o.file, r.gcs()[i].info.gc_number), s.error()));
  }
  fmt::print("{}: {} GCs checked, {} bytes, ends {}: {}\n", o.file, r.gcs().size(), r.file_size(),
             file_end_name(r.end()), problems == 0 ? "OK" : fmt::format("{} problem(s)", problems));
  if (problems) throw CliError(fmt::format("{}: {} problem(s) found", o.file, problems), kExitProblems);
}

}  // namespace

void add_verify_command(CLI::App& app) {
  auto options = std::make_shared<VerifyOptions>();
  auto* cmd = app.add_subcommand("verify", "Decode and check every GC of a recording; exit 0 only if it is sound");
  cmd->add_option("FILE", options->file, "recording (.snap)")->required();
  add_no_cache_option(*cmd, options->no_cache);
  cmd->callback([options] { run_verify(*options); });
}

}  // namespace gcsnap::cli
