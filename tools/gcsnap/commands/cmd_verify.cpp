// gcsnap verify FILE: decode and check everything (docs/cli.md "gcsnap verify").
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "loading/gc_select.hpp"
#include "loading/gc_verify.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/reader.hpp"
#include "loading/heap_load.hpp"

namespace gcsnap::cli {
namespace {

struct VerifyOptions {
  std::string file;
  bool no_cache = false;
};

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
    // An index that vouches for the block spares the decode of its objects (gc_verify.hpp).
    Status s = verify_recording_gc(o.file, r, i, o.no_cache);
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
