// gcsnap diff: placeholder until its issue lands; it says so instead of pretending.
#include <CLI/CLI.hpp>

#include "cli_error.hpp"
#include "commands.hpp"

namespace gcsnap::cli {

void add_diff_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("diff", "(not implemented yet)");
  cmd->allow_extras();
  cmd->callback([] { throw CliError("'diff' is not implemented yet", kExitUsage); });
}

}  // namespace gcsnap::cli
