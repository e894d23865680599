// gcsnap strip-strings FILE -o OUT: a copy of a recording without the string contents that
// `record --capture-strings` captured (gcsnap/strip_strings.hpp); lengths and hashes stay.
#include <filesystem>
#include <memory>
#include <system_error>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.hpp"
#include "errors/cli_error.hpp"
#include "gcsnap/strip_strings.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {
namespace {

struct StripOptions {
  std::string file;
  std::string output;
};

void run_strip(const StripOptions& opt) {
  // Writing onto the input would destroy what is being copied: a usage error, before any I/O.
  if (std::error_code ec; std::filesystem::equivalent(opt.file, opt.output, ec))
    throw CliError(fmt::format("{}: the output is the input: write the copy to another file", opt.file), kExitUsage);
  const StripReport report = value_or_fail(strip_string_contents(opt.file, opt.output), opt.file);
  fmt::print("{}: {} GCs copied, {} string-contents sections ({} bytes) removed\n", opt.output, report.gcs,
             report.sections_removed, report.bytes_removed);
}

}  // namespace

void add_strip_strings_command(CLI::App& app) {
  auto opt = std::make_shared<StripOptions>();
  auto* cmd = app.add_subcommand("strip-strings", "Write a copy of a recording without captured string contents "
                                                  "(record --capture-strings); everything else is kept");
  cmd->add_option("file", opt->file, "recording")->required();
  cmd->add_option("-o,--output", opt->output, "the copy to write (replaced if it exists)")->required();
  cmd->callback([opt] { run_strip(*opt); });
}

}  // namespace gcsnap::cli
