// gcsnap ps: the .NET processes gcsnap can snapshot (those with a runtime diagnostics endpoint
// it can reach), as `dotnet-gcdump ps` lists them; those already under gcsnap are marked.
// The same on both systems (platform/processes.hpp).
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "commands/commands.hpp"
#include "errors/cli_error.hpp"
#include "platform/console.hpp"
#include "platform/processes.hpp"
#include "process/diagnostics_ipc.hpp"

namespace gcsnap::cli {
namespace {

constexpr int kProcessInfoTimeoutS = 5;

std::string joined(const std::vector<std::string>& command) {
  std::string text;
  for (const std::string& arg : command) text += (text.empty() ? "" : " ") + arg;
  return text;
}

/// P's command line: its argv where the system tells (Linux), else the runtime's word for it
/// (Windows), else its name (a runtime that is starting or ending does not answer).
std::string command_text(const ProcessInfo& p, const std::string& endpoint) {
  if (!p.command.empty()) return joined(p.command);
  try {
    return query_process_info(endpoint, kProcessInfoTimeoutS).command_line;
  } catch (const CliError&) {
    return p.name;
  }
}

void run_ps() {
  size_t shown = 0;
  const long self = static_cast<long>(current_process_id());
  for (long pid : list_pids()) {
    if (pid == self) continue;
    auto info = read_process_info(pid);
    // Another user's process cannot be attached to (and its TMPDIR is unknown): not listed.
    if (!info || !info->environ_readable) continue;
    const std::string endpoint = find_diagnostics_endpoint(*info);
    if (endpoint.empty()) continue;
    const std::string command = command_text(*info, endpoint);
    if (shown++ == 0) fmt::print("{:>8}  {:<20}  {:<8}  {}\n", "PID", "NAME", "GCSNAP", "COMMAND");
    bool recorded = has_live_control_channel(*info);
    fmt::print("{:>8}  {:<20}  {:<8}  {}\n", pid, info->name, recorded ? "yes" : "-", command);
  }
  if (shown == 0) fmt::print(stderr, "gcsnap: {}\n", no_dotnet_process_text());
}

}  // namespace

void add_ps_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("ps", "List the running .NET processes that 'gcsnap snapshot' can attach to");
  cmd->callback([] { run_ps(); });
}

}  // namespace gcsnap::cli
