// record, snapshot and ps in the Windows build: not built yet. Each is still a subcommand, so
// that `gcsnap record -- app.exe` says so in one line (exit 4, "nothing could be recorded")
// instead of "unknown command". Their Windows implementation (CreateProcess with the profiler
// variables, the named-pipe diagnostics transport, the process list) is docs/windows.md's
// "not yet" list.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.hpp"
#include "output/cli_error.hpp"

namespace gcsnap::cli {
namespace {

void add_unavailable(CLI::App& app, const char* name, const char* description) {
  static std::vector<std::string> ignored;  // whatever follows, `-- app.exe args` included
  auto* cmd = app.add_subcommand(name, description);
  cmd->allow_extras();
  cmd->add_option("args", ignored, "not used in this build");
  cmd->callback([name] {
    throw CliError(fmt::format("{}: not available in the Windows build yet (see docs/windows.md)", name),
                   kExitNotRecorded);
  });
}

}  // namespace

void add_record_command(CLI::App& app) {
  add_unavailable(app, "record", "Run a .NET command and record its GC heaps (not in the Windows build yet)");
}
void add_snapshot_command(CLI::App& app) {
  add_unavailable(app, "snapshot", "Attach to a running .NET process (not in the Windows build yet)");
}
void add_ps_command(CLI::App& app) {
  add_unavailable(app, "ps", "List the running .NET processes (not in the Windows build yet)");
}

}  // namespace gcsnap::cli
