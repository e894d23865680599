// gcsnap: record .NET GC heaps and answer "why is this object alive, what changed?".

#include <algorithm>
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <gcsnap/version.hpp>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "platform/console.hpp"

namespace {

// `gcsnap` alone: what there is to run, and where to read more (on stderr: it is a usage
// error, and scripts reading stdout get nothing).
int print_commands(const CLI::App& app) {
  fmt::print(stderr, "{}\n\nUsage: gcsnap <command> [options] [arguments]\n\nCommands:\n", app.get_description());
  size_t width = 0;
  for (const CLI::App* cmd : app.get_subcommands({})) width = std::max(width, cmd->get_name().size());
  for (const CLI::App* cmd : app.get_subcommands({}))
    fmt::print(stderr, "  {:<{}}  {}\n", cmd->get_name(), width, cmd->get_description());
  fmt::print(stderr, "\nRun 'gcsnap <command> --help' for a command's options (docs/cli.md has them all).\n");
  return gcsnap::cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gcsnap::cli;
  use_binary_standard_streams();
  CLI::App app{"gcsnap: record .NET GC heaps, find why objects stay alive, diff heaps"};
  // Options are --long and -s on every system: CLI11's default on Windows would take a path
  // such as /tmp/x.snap for an option named "tmp/x.snap".
  app.allow_windows_style_options(false);
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("gcsnap {}", gcsnap::kVersion));
  add_record_command(app);
  add_snapshot_command(app);
  add_ps_command(app);
  add_info_command(app);
  add_verify_command(app);
  add_roots_command(app);
  add_path_command(app);
  add_where_command(app);
  add_types_command(app);
  add_objects_command(app);
  add_dominators_command(app);
  add_diff_command(app);
  add_leaks_command(app);
  add_allocs_command(app);
  add_inspect_command(app);
  add_check_command(app);
  add_export_command(app);
  add_report_command(app);
  add_index_command(app);
  add_strip_strings_command(app);
  if (argc <= 1) return print_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "gcsnap: error: {}\n", e.what());
    return kExitUsage;
  } catch (const CliError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "gcsnap: error: {}\n", e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "gcsnap: error: out of memory\n");
    return kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gcsnap: error: {}\n", e.what());
    return kExitProblems;
  }
  return kExitOk;
}
