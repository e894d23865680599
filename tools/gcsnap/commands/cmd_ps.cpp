// gcsnap ps: the .NET processes gcsnap can snapshot (those with a runtime diagnostics socket
// it can reach), as `dotnet-gcdump ps` lists them; those already under gcsnap are marked.
#include <unistd.h>

#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "output/cli_error.hpp"
#include "commands/commands.hpp"
#include "process/process_info.hpp"

namespace gcsnap::cli {
namespace {

std::string joined(const std::vector<std::string>& command) {
  std::string text;
  for (const std::string& arg : command) text += (text.empty() ? "" : " ") + arg;
  return text;
}

void run_ps() {
  size_t shown = 0;
  for (long pid : list_pids()) {
    if (pid == ::getpid()) continue;
    auto info = read_process_info(pid);
    // Another user's process cannot be attached to (and its TMPDIR is unknown): not listed.
    if (!info || !info->environ_readable || find_diagnostics_socket(*info).empty()) continue;
    if (shown++ == 0) fmt::print("{:>8}  {:<20}  {:<8}  {}\n", "PID", "NAME", "GCSNAP", "COMMAND");
    bool recorded = has_live_control_socket(*info);
    fmt::print("{:>8}  {:<20}  {:<8}  {}\n", pid, info->name, recorded ? "yes" : "-", joined(info->command));
  }
  if (shown == 0) fmt::print(stderr, "gcsnap: no .NET process of yours is running (none with a diagnostics socket)\n");
}

}  // namespace

void add_ps_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("ps", "List the running .NET processes that 'gcsnap snapshot' can attach to");
  cmd->callback([] { run_ps(); });
}

}  // namespace gcsnap::cli
