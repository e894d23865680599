#include "process/attach_client.hpp"

// The same on every system: the platform layer finds the process, its endpoints and the
// shim, creates the output file and hands it over (platform/processes.hpp, platform/files.hpp).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "process/diagnostics_ipc.hpp"
#include "gcsnap_shim/control_client.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "platform/console.hpp"
#include "platform/files.hpp"
#include "process/record_launch.hpp"

namespace gcsnap::cli {
namespace {

constexpr uint32_t kAlreadyActive = 0x8013136Au;
constexpr uint32_t kAttachTimeoutMs = 10000;  // the runtime's wait for a background GC in progress

/// The shim path as the target sees it: in another mount namespace (a container) a copy in
/// its TMPDIR, reached through /proc/PID/root.
std::string shim_for(const ProcessInfo& target) {
  std::string shim = find_shim();
  if (target.root.empty()) return shim;
  std::string inside = target.tmpdir + "/gcsnap-" + std::string(shim::kShimFileName);
  std::ifstream in(shim, std::ios::binary);
  std::ofstream out(target.root + inside, std::ios::binary | std::ios::trunc);
  out << in.rdbuf();
  if (!in || !out) throw CliError("cannot copy the shim into the process's TMPDIR " + target.root + inside, kExitProblems);
  return inside;
}

std::string client_data(const AttachOptions& options, const ProcessInfo& target) {
  std::string data = std::string(shim::kAttachDataHeader) + "\n";
  data += "mode=" + options.mode + "\npolicy=" + options.policy + "\n";
  if (options.source != "profiler") data += "source=" + options.source + "\n";
  if (!options.alloc_sites) data += "alloc_sites=0\n";
  // A pid means something there only in the same pid namespace; else the deadline alone watches.
  data += fmt::format("owner_pid={}\ndeadline_s={}\n", target.same_pid_namespace ? current_process_id() : 0, options.deadline_s);
  if (options.max_memory_mb > 0) data += fmt::format("max_memory_mb={}\n", options.max_memory_mb);
  if (options.max_snapshots >= 0) data += fmt::format("max_snapshots={}\n", options.max_snapshots);
  if (options.on_heap_growth_bytes > 0) data += fmt::format("on_heap_growth={}\n", options.on_heap_growth_bytes);
  if (options.max_size > 0) data += fmt::format("max_size={}\n", options.max_size);
  if (options.capture_strings > 0) data += fmt::format("capture_strings={}\n", options.capture_strings);
  return data;
}

/// The default output name: gcsnap-<name>-<pid>-<yyyymmdd-hhmmss>.snap in the current
/// directory (local time, as dotnet-gcdump names its dumps), so that repeated snapshots of one
/// process never share a file; a second one within the same second gets "-2", "-3", ...
std::string default_output(const ProcessInfo& target) {
  const std::tm local = local_time(std::time(nullptr));
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
  // An image name on Windows ("app.exe") names its file without ".exe", as `record` does.
  std::string stem = target.name;
  if (stem.size() > 4 && (stem.compare(stem.size() - 4, 4, ".exe") == 0 || stem.compare(stem.size() - 4, 4, ".EXE") == 0)) {
    stem.resize(stem.size() - 4);
  }
  std::string base = fmt::format("gcsnap-{}-{}-{}", stem, target.pid, stamp);
  std::string name = base + ".snap";
  for (int n = 2; path_taken(name) && n < 1000; ++n) name = fmt::format("{}-{}.snap", base, n);
  return name;
}

/// Attach, retrying for a few seconds when the active profiler may be our own last session
/// still detaching (the runtime finishes a detach a moment after it says so).
void attach(const ProcessInfo& target, const std::string& endpoint, const AttachProfilerRequest& request) {
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    uint32_t hr = attach_profiler(endpoint, request, kAttachTimeoutMs / 1000 + 20);
    if ((hr & 0x80000000u) == 0) return;
    bool ours_detaching = hr == kAlreadyActive && has_shim_loaded(target.pid) && !has_live_control_channel(target);
    if (ours_detaching && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    std::string why = describe_attach_result(hr);
    throw CliError(fmt::format("cannot attach to process {} ({}): {}; the process runs on unchanged", target.pid,
                               target.name, why),
                   kExitProblems);
  }
}

}  // namespace

std::string control_request(const std::string& path, std::string_view request, int timeout_s, intptr_t file) {
  shim::ControlReply reply = shim::send_control_request(path, request, timeout_s, file);
  if (!reply.answered) throw CliError(std::move(reply.text), kExitProblems);
  return std::move(reply.text);
}

ProcessInfo inspect_target(long pid) {
  if (pid <= 0) throw CliError("PID must be a positive process id", kExitUsage);
  auto info = read_process_info(pid);
  if (!info) throw CliError(fmt::format("no process {}", pid), kExitProblems);
  if (has_live_control_channel(*info)) return *info;  // under gcsnap already
  // Only `gcsnap record` itself is answered with the app it records: any other process (pid 1
  // above all) may have recorded apps among its descendants.
  const bool is_record = (info->name == "gcsnap" || info->name == "gcsnap.exe") &&
                         std::find(info->command.begin(), info->command.end(), "record") != info->command.end();
  if (long child = is_record ? recorded_child_of(pid) : 0) {
    throw CliError(fmt::format("process {} is 'gcsnap record' itself; the app it records is process {}: "
                               "gcsnap snapshot {}", pid, child, child),
                   kExitUsage);
  }
  if (std::string problem = access_problem(*info); !problem.empty()) {
    throw CliError(fmt::format("process {} ({}) {}", pid, info->name, problem), kExitProblems);
  }
  return *info;
}

AttachedSession::AttachedSession(const ProcessInfo& target, const AttachOptions& options) : target_(target) {
  // Refused before asking the runtime: .NET 10 still accepts an attach with
  // DOTNET_EnableDiagnostics_Profiler=0 (measured), but whoever set it meant "no profiler".
  if (!target.diagnostics_disabled_by.empty()) {
    throw CliError(fmt::format("cannot attach to process {} ({}): diagnostics are disabled in it ({})", target.pid,
                               target.name, target.diagnostics_disabled_by),
                   kExitProblems);
  }
  std::string endpoint = find_diagnostics_endpoint(target);
  if (endpoint.empty()) {
    throw CliError(fmt::format("process {} ({}) is not a .NET process ({})", target.pid, target.name,
                               missing_endpoint_reason(target)),
                   kExitProblems);
  }
  std::string requested = options.output.empty() ? default_output(target) : options.output;
  output_path_ = prepare_output(requested, options.replace_output);
  AttachOutput output(output_path_);
  AttachProfilerRequest request;
  request.timeout_ms = kAttachTimeoutMs;
  request.clsid_text = shim::kClsidText;
  request.profiler_path = shim_for(target);
  request.client_data = client_data(options, target);
  try {
    attach(target, endpoint, request);
  } catch (...) {
    output.discard();
    throw;
  }
  control_path_ = control_endpoint_of(target);
  std::string reply;
  try {
    reply = control_request(control_path_, shim::kRequestOutput, 30, output.handle());
  } catch (const CliError& e) {
    reply = e.what();
  }
  output.close();  // the shim has its own copy now (or none: then it detaches)
  if (reply != shim::kReplyOk) {
    try {
      detach();
    } catch (const CliError&) {
      // The shim's watchdog detaches it when gcsnap is gone.
    }
    throw CliError(fmt::format("attached to process {} but could not hand it the output: {} (detached again)",
                               target.pid, reply),
                   kExitProblems);
  }
}

AttachedSession::~AttachedSession() {
  try {
    detach();
  } catch (...) {
    // The shim's watchdog detaches it when gcsnap is gone.
  }
}

std::string AttachedSession::snapshot(int timeout_s) {
  std::string reply = control_request(control_path_, shim::kRequestSnapshot, timeout_s);
  if (reply.rfind(std::string(shim::kReplyOk) + " ", 0) == 0) return reply.substr(shim::kReplyOk.size() + 1);
  throw CliError(fmt::format("process {}: {}", target_.pid, reply), kExitProblems);
}

std::string AttachedSession::detach() {
  if (detached_) return "ok detached";
  detached_ = true;
  // The shim answers once the runtime has unloaded it (bounded by kDetachWaitMs there).
  return control_request(control_path_, shim::kRequestDetach, shim::kDetachWaitMs / 1000 + 30);
}

}  // namespace gcsnap::cli
