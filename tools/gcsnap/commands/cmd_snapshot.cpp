// gcsnap snapshot PID: a heap snapshot of a running .NET process. A process under `gcsnap
// record` is asked through its shim's control channel (docs/shim.md "On-demand snapshots");
// any other is attached to through the runtime's diagnostics IPC, snapshot, and detached
// again (docs/shim.md "Attach"). The same on both systems (platform/processes.hpp).
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "process/attach_client.hpp"
#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "output/output.hpp"
#include "platform/processes.hpp"
#include "commands/summary_line.hpp"

namespace gcsnap::cli {
namespace {

struct SnapshotOptions {
  long pid = 0;
  int timeout_s = 300;
  std::string output;
  bool force = false;  ///< -o may replace an existing file
};

void snapshot_recorded(const ProcessInfo& target, const SnapshotOptions& options) {
  if (!options.output.empty()) {
    throw CliError(fmt::format("process {} is already recorded by gcsnap into its own file; -o applies only "
                               "when gcsnap attaches", target.pid),
                   kExitUsage);
  }
  std::string reply = control_request(control_endpoint_of(target), shim::kRequestSnapshot, options.timeout_s);
  if (reply.rfind(std::string(shim::kReplyOk) + " ", 0) == 0) {
    fmt::print("snapshot taken in process {}: GC #{}\n", target.pid, reply.substr(shim::kReplyOk.size() + 1));
    return;
  }
  if (reply.rfind(std::string(shim::kReplyError) + " ", 0) == 0) {
    throw CliError(fmt::format("process {}: {}", target.pid, reply.substr(shim::kReplyError.size() + 1)),
                   kExitProblems);
  }
  throw CliError(fmt::format("process {} gave no answer (it may be exiting)", target.pid), kExitProblems);
}

void snapshot_attached(const ProcessInfo& target, const SnapshotOptions& options) {
  AttachOptions attach;
  attach.mode = "snapshot";
  attach.policy = "none";  // only the forced GC gets a heap walk
  attach.output = options.output;
  attach.replace_output = options.force;
  attach.deadline_s = static_cast<unsigned long long>(options.timeout_s) + 60;
  AttachedSession session(target, attach);
  std::string gc = session.snapshot(options.timeout_s);
  std::string detached = session.detach();
  if (detached.rfind(std::string(shim::kReplyOk) + " ", 0) != 0) {
    fmt::print(stderr, "gcsnap: warning: process {}: {}\n", target.pid, detached);
  }
  auto opened = Recording::open(session.output_path());
  if (!opened.is_ok()) fail_on(session.output_path(), opened.error());
  fmt::print("snapshot of process {} ({}): GC #{}, {} in {}; {}\n", target.pid, target.name, gc,
             format_bytes((*opened)->file_size()), session.output_path(),
             detached == "ok detached" ? "detached" : "detach pending");
}

void run_snapshot(const SnapshotOptions& options) {
  ProcessInfo target = inspect_target(options.pid);
  if (has_live_control_channel(target)) {
    snapshot_recorded(target, options);
  } else {
    snapshot_attached(target, options);
  }
}

}  // namespace

void add_snapshot_command(CLI::App& app) {
  auto options = std::make_shared<SnapshotOptions>();
  auto* cmd = app.add_subcommand("snapshot", "Take a heap snapshot of a running .NET process now");
  cmd->add_option("pid", options->pid, "Process id (any .NET process of yours, or one under 'gcsnap record')")->required();
  cmd->add_option("-o,--output", options->output,
                  "Output file when gcsnap attaches (default gcsnap-<name>-<pid>-<yyyymmdd-hhmmss>.snap); "
                  "an existing file is refused");
  cmd->add_flag("--force", options->force, "Replace the output file if it exists");
  cmd->add_option("--timeout", options->timeout_s, "Seconds to wait for the snapshot GC (default 300)")
      ->check(CLI::PositiveNumber);
  cmd->footer("Cost: the app stands still for one full blocking GC with a heap walk (~0.4-0.5 s per million\n"
              "objects); attaching adds wall time, not pause. For a series with object identity (leaks):\n"
              "gcsnap record --pid PID --every 30s (docs/cli.md \"What attaching costs\").");
  cmd->callback([options] { run_snapshot(*options); });
}

}  // namespace gcsnap::cli
