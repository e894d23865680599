// record, snapshot and ps in the Windows build. They use the same pieces as on Linux where the
// systems agree (the diagnostics IPC messages, the profiler variables, the shim's reports and
// the file's summary) and the Windows platform layer where they differ (platform/processes.hpp,
// platform/diagnostics_transport.hpp, CreateProcessW in platform/windows/launch_windows.cpp).
// snapshot PID and record --pid attach over the diagnostics pipe and hand the shim its output
// file (a HANDLE) over its control pipe (profiler-shim/README.md); --every asks over that pipe.
#include <windows.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.hpp"
#include "commands/summary_line.hpp"
#include "gcsnap/finish_recording.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap_shim/control_client.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "output/cli_error.hpp"
#include "output/output.hpp"
#include "platform/console.hpp"
#include "platform/processes.hpp"
#include "platform/windows/windows_text.hpp"
#include "process/diagnostics_ipc.hpp"
#include "process/periodic_snapshots.hpp"
#include "process/record_launch.hpp"

namespace gcsnap::cli {
namespace {

constexpr int kProcessInfoTimeoutS = 5;

// ---- ps ----------------------------------------------------------------------------------

void run_ps() {
  size_t shown = 0;
  const long self = static_cast<long>(current_process_id());
  for (const ProcessEntry& p : list_processes()) {
    if (p.pid == self || p.pid == 0) continue;
    const std::string endpoint = diagnostics_endpoint_name(p.pid);
    if (!pipe_exists(endpoint)) continue;
    std::string command = p.image;
    try {
      command = query_process_info(endpoint, kProcessInfoTimeoutS).command_line;
    } catch (const CliError&) {
      // A runtime that is starting or ending: listed with its image name.
    }
    if (shown++ == 0) fmt::print("{:>8}  {:<20}  {:<8}  {}\n", "PID", "NAME", "GCSNAP", "COMMAND");
    const bool recorded = pipe_exists(control_endpoint_name(p.pid));
    fmt::print("{:>8}  {:<20}  {:<8}  {}\n", p.pid, p.image, recorded ? "yes" : "-", command);
  }
  if (shown == 0) fmt::print(stderr, "gcsnap: no .NET process is running (none with a diagnostics pipe)\n");
}

// ---- snapshot ----------------------------------------------------------------------------

struct SnapshotOptions {
  long pid = 0;
  int timeout_s = 300;
  std::string output;
  bool force = false;
};

/// The target's entry, or throw CliError with the line that says why it cannot be snapshot.
ProcessEntry inspect_target(long pid) {
  if (pid <= 0) throw CliError("PID must be a positive process id", kExitUsage);
  ProcessEntry target = find_process(pid);
  if (target.pid == 0) throw CliError(fmt::format("no process {}", pid), kExitProblems);
  const std::string endpoint = diagnostics_endpoint_name(pid);
  if (!pipe_exists(endpoint)) {
    throw CliError(fmt::format("process {} ({}) is not a .NET process (no diagnostics pipe {})", pid, target.image,
                               endpoint),
                   kExitProblems);
  }
  // The runtime must answer before anything is asked of it (a process that is exiting does not).
  (void)query_process_info(endpoint, kProcessInfoTimeoutS);
  return target;
}


// ---- attaching ---------------------------------------------------------------------------

constexpr uint32_t kAttachTimeoutMs = 10000;
/// How long one --every heap walk may take before gcsnap gives up on it (as `snapshot`).
constexpr int kWalkTimeoutS = 300;

/// One control request to the shim in PID; FILE (a HANDLE, or -1) goes with it. Throws CliError.
std::string control_request(long pid, std::string_view request, int timeout_s, intptr_t file = -1) {
  shim::ControlReply reply = shim::send_control_request(control_endpoint_name(pid), request, timeout_s, file);
  if (!reply.answered) throw CliError(fmt::format("process {}: {}", pid, reply.text), kExitProblems);
  return std::move(reply.text);
}

/// gcsnap-<name>-<pid>-<yyyymmdd-hhmmss>.snap in the current folder, as on Linux.
std::string default_output(const ProcessEntry& target) {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_s(&local, &now);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
  std::string name = target.image;
  if (name.size() > 4 && _stricmp(name.c_str() + name.size() - 4, ".exe") == 0) name.resize(name.size() - 4);
  std::string base = fmt::format("gcsnap-{}-{}-{}", name, target.pid, stamp);
  std::string file = base + ".snap";
  std::error_code ec;
  for (int n = 2; std::filesystem::exists(path_of(file), ec) && n < 1000; ++n) file = fmt::format("{}-{}.snap", base, n);
  return file;
}

struct AttachOptions {
  std::string mode = "snapshot";  ///< snapshot | record
  std::string policy = "none";
  std::string output;             ///< as given; "" = default_output
  bool replace_output = false;
  unsigned long long deadline_s = 0;
  long long max_memory_mb = -1;
  long long max_snapshots = -1;
};

/// The shim attached to a process over its diagnostics pipe, recording into a file gcsnap
/// opened and handed over (docs/shim.md "Attach"). Detached by detach() or the destructor,
/// and by the shim's own watchdog if gcsnap dies.
class AttachedSession {
 public:
  AttachedSession(const ProcessEntry& target, const AttachOptions& options) : target_(target) {
    const std::string shim_path = find_shim();
    output_ = prepare_output(options.output.empty() ? default_output(target) : options.output, options.replace_output);
    file_ = CreateFileW(widen(output_).c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, nullptr, CREATE_NEW,
                        FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file_ == INVALID_HANDLE_VALUE) {
      throw CliError("output path not writable: " + output_ + ": " + system_message(GetLastError()), kExitNotRecorded);
    }
    AttachProfilerRequest request;
    request.timeout_ms = kAttachTimeoutMs;
    request.clsid_text = shim::kClsidText;
    request.profiler_path = shim_path;
    request.client_data = std::string(shim::kAttachDataHeader) + "\nmode=" + options.mode + "\npolicy=" +
                          options.policy + "\n" +
                          fmt::format("owner_pid={}\ndeadline_s={}\n", current_process_id(), options.deadline_s);
    if (options.max_memory_mb > 0) request.client_data += fmt::format("max_memory_mb={}\n", options.max_memory_mb);
    if (options.max_snapshots >= 0) request.client_data += fmt::format("max_snapshots={}\n", options.max_snapshots);
    uint32_t hr = 0;
    try {
      hr = attach_profiler(diagnostics_endpoint_name(target.pid), request, kAttachTimeoutMs / 1000 + 20);
    } catch (...) {
      discard_output();
      throw;
    }
    if (hr & 0x80000000u) {
      discard_output();
      throw CliError(fmt::format("cannot attach to process {} ({}): {}; the process runs on unchanged", target.pid,
                                 target.image, describe_attach_result(hr)),
                     kExitProblems);
    }
    std::string reply;
    try {
      reply = control_request(target.pid, shim::kRequestOutput, 30, reinterpret_cast<intptr_t>(file_));
    } catch (const CliError& e) {
      reply = e.what();
    }
    if (reply != shim::kReplyOk) {
      (void)detach();
      throw CliError(fmt::format("attached to process {} but could not hand it the output: {} (detached again)",
                                 target.pid, reply),
                     kExitProblems);
    }
  }
  ~AttachedSession() {
    (void)detach();
    close_file();
  }
  AttachedSession(const AttachedSession&) = delete;
  AttachedSession& operator=(const AttachedSession&) = delete;

  /// Ask for a snapshot now; return the GC number. Throws CliError.
  std::string snapshot(int timeout_s) {
    std::string reply = control_request(target_.pid, shim::kRequestSnapshot, timeout_s);
    if (reply.rfind(std::string(shim::kReplyOk) + " ", 0) != 0) {
      throw CliError(fmt::format("process {}: {}", target_.pid, reply), kExitProblems);
    }
    return reply.substr(shim::kReplyOk.size() + 1);
  }
  /// Finish the file and detach; return the shim's reply ("ok detached", or why not).
  std::string detach() noexcept {
    if (detached_) return "ok detached";
    detached_ = true;
    try {
      return control_request(target_.pid, shim::kRequestDetach, shim::kDetachWaitMs / 1000 + 30);
    } catch (const std::exception& e) {
      return e.what();  // the shim's watchdog detaches it when gcsnap is gone
    }
  }
  void close_file() noexcept {
    if (file_ != INVALID_HANDLE_VALUE) CloseHandle(file_);
    file_ = INVALID_HANDLE_VALUE;
  }
  const std::string& output_path() const { return output_; }

 private:
  void discard_output() noexcept {
    close_file();
    DeleteFileW(widen(output_).c_str());
    detached_ = true;
  }

  ProcessEntry target_;
  std::string output_;
  HANDLE file_ = INVALID_HANDLE_VALUE;
  bool detached_ = false;
};

// ---- snapshot ----------------------------------------------------------------------------

void run_snapshot(const SnapshotOptions& options) {
  ProcessEntry target = inspect_target(options.pid);
  if (pipe_exists(control_endpoint_name(target.pid))) {
    if (!options.output.empty()) {
      throw CliError(fmt::format("process {} is already recorded by gcsnap into its own file; -o applies only "
                                 "when gcsnap attaches", target.pid),
                     kExitUsage);
    }
    std::string reply = control_request(target.pid, shim::kRequestSnapshot, options.timeout_s);
    if (reply.rfind(std::string(shim::kReplyOk) + " ", 0) != 0) {
      throw CliError(fmt::format("process {}: {}", target.pid, reply), kExitProblems);
    }
    fmt::print("snapshot taken in process {}: GC #{}\n", target.pid, reply.substr(shim::kReplyOk.size() + 1));
    return;
  }
  AttachOptions attach;
  attach.output = options.output;
  attach.replace_output = options.force;
  attach.deadline_s = static_cast<unsigned long long>(options.timeout_s) + 60;
  AttachedSession session(target, attach);
  std::string gc = session.snapshot(options.timeout_s);
  std::string detached = session.detach();
  if (detached.rfind(std::string(shim::kReplyOk) + " ", 0) != 0) {
    fmt::print(stderr, "gcsnap: warning: process {}: {}\n", target.pid, detached);
  }
  session.close_file();
  auto opened = Recording::open(session.output_path());
  if (!opened.is_ok()) fail_on(session.output_path(), opened.error());
  fmt::print("snapshot of process {} ({}): GC #{}, {} in {}; {}\n", target.pid, target.image, gc,
             format_bytes((*opened)->file_size()), session.output_path(),
             detached == "ok detached" ? "detached" : "detach pending");
}

// ---- record ------------------------------------------------------------------------------

struct RecordOptions {
  std::string output;
  bool force = false;
  std::string policy = "default";
  long long max_snapshots = -1;
  long long max_memory_mb = -1;
  long pid = 0;
  std::string duration;
  std::string every;
  bool index = false;
  std::vector<std::string> command;
};

/// The reports the shims left in DIR (shim_protocol.hpp ProcessReport), in no set order.
std::vector<shim::ProcessReport> read_reports(const std::filesystem::path& dir) {
  std::vector<shim::ProcessReport> reports;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (utf8(entry.path().extension()) != shim::kReportSuffix) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    shim::ProcessReport report;
    if (shim::parse_process_report(text.str(), report)) reports.push_back(std::move(report));
  }
  return reports;
}

/// A private folder for the shims' reports: %TEMP%\gcsnap-record-<pid>-<n>.
std::filesystem::path make_report_directory() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) throw CliError("cannot find the temporary folder: " + ec.message(), kExitNotRecorded);
  for (int n = 0; n < 1000; ++n) {
    std::filesystem::path dir = base / fmt::format("gcsnap-record-{}-{}", current_process_id(), n);
    if (std::filesystem::create_directory(dir, ec)) return dir;
  }
  throw CliError("cannot create a folder in " + utf8(base), kExitNotRecorded);
}

std::atomic<bool> g_stop{false};

// Ctrl+C, Ctrl+Break and closing the console end `record --pid` (which then detaches).
BOOL WINAPI on_stop_event(DWORD event) {
  if (event != CTRL_C_EVENT && event != CTRL_BREAK_EVENT && event != CTRL_CLOSE_EVENT) return FALSE;
  g_stop.store(true);
  return TRUE;
}

/// record --pid: attach, wait for the duration, Ctrl+C or the process's end, detach.
[[noreturn]] void run_record_attached(const RecordOptions& options) {
  const unsigned long long seconds = options.duration.empty() ? 0 : parse_duration(options.duration, "--duration");
  const unsigned long long every = options.every.empty() ? 0 : parse_duration(options.every, "--every");
  ProcessEntry target = inspect_target(options.pid);
  if (pipe_exists(control_endpoint_name(target.pid))) {
    throw CliError(fmt::format("process {} is already recorded by gcsnap; use 'gcsnap snapshot {}' to add a snapshot",
                               options.pid, options.pid),
                   kExitProblems);
  }
  AttachOptions attach;
  attach.mode = "record";
  attach.policy = options.policy;
  attach.output = options.output;
  attach.replace_output = options.force;
  attach.max_memory_mb = options.max_memory_mb;
  attach.max_snapshots = options.max_snapshots;
  // The shim detaches by itself a minute after the duration, should this gcsnap be stopped hard.
  attach.deadline_s = seconds ? seconds + 60 : 0;
  SetConsoleCtrlHandler(on_stop_event, TRUE);
  HANDLE process = OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(target.pid));
  struct Closer {
    HANDLE h;
    ~Closer() {
      if (h) CloseHandle(h);
    }
  } closer{process};
  AttachedSession session(target, attach);
  fmt::print(stderr, "gcsnap: recording process {} ({}) into {}{}{}\n", target.pid, target.image, session.output_path(),
             seconds ? fmt::format(" for {} s", seconds) : std::string(" until Ctrl+C"),
             every ? fmt::format(", a heap walk every {} s", every) : std::string());
  std::fflush(stderr);
  std::optional<PeriodicSnapshots> periodic;
  if (every) {
    periodic.emplace(every, kWalkTimeoutS);
    periodic->set_targets({{target.pid, control_endpoint_name(target.pid)}});
  }
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  bool exited = false;
  while (!g_stop.load() && (seconds == 0 || std::chrono::steady_clock::now() < end)) {
    if (process ? WaitForSingleObject(process, 100) == WAIT_OBJECT_0 : find_process(target.pid).pid == 0) {
      exited = true;
      break;
    }
    if (!process) Sleep(100);
  }
  if (periodic) periodic->stop();
  std::string detached = exited ? std::string() : session.detach();
  if (!exited && process && WaitForSingleObject(process, 0) == WAIT_OBJECT_0 &&
      detached.rfind(std::string(shim::kReplyOk) + " ", 0) != 0) {
    exited = true;  // it ended meanwhile: its shim finished the file at Shutdown
  }
  session.close_file();
  if (exited) fmt::print(stderr, "gcsnap: process {} exited while recorded\n", target.pid);
  else if (detached != "ok detached") fmt::print(stderr, "gcsnap: warning: process {}: {}\n", target.pid, detached);
  if (exited) {
    auto finished = finish_recording(session.output_path());
    if (!finished) fail_on(session.output_path(), finished.error());
  }
  const uint64_t walks =
      print_summary(session.output_path(), fmt::format("process {} ({})", target.pid, target.image), options.index);
  if (walks == 0) print_no_walk_hint(session.output_path(), options.policy, target.pid);
  std::fflush(stdout);
  std::exit(kExitOk);
}

[[noreturn]] void run_record(const RecordOptions& options) {
  const std::string& p = options.policy;
  if (p != "default" && p != "all" && p != "gen2" && p != "induced" && p != "none") {
    throw CliError("--policy must be one of default, all, gen2, induced, none", kExitUsage);
  }
  if (options.pid != 0 && !options.command.empty()) {
    throw CliError("record: give either --pid PID or a command after --, not both", kExitUsage);
  }
  if (options.pid != 0) run_record_attached(options);
  if (!options.duration.empty()) throw CliError("record: --duration goes with --pid", kExitUsage);
  const unsigned long long every = options.every.empty() ? 0 : parse_duration(options.every, "--every");
  if (options.command.empty()) {
    throw CliError("record: no command given (gcsnap record -- COMMAND ..., or gcsnap record --pid PID)", kExitUsage);
  }
  std::string shim_path = find_shim();
  std::string output = prepare_output(options.output.empty() ? "gcsnap-{name}-{pid}.snap" : options.output, options.force);
  std::filesystem::path report_dir = make_report_directory();
  struct Remover {
    std::filesystem::path dir;
    ~Remover() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } remover{report_dir};

  LaunchRequest request;
  request.command = options.command;
  request.environment = profiler_environment(std::string(shim::kClsidText), shim_path);
  for (auto& variable : framework_profiler_environment(std::string(shim::kClsidText), shim_path)) {
    request.environment.push_back(std::move(variable));
  }
  request.environment.emplace_back(shim::kEnvOutput, output);
  request.environment.emplace_back(shim::kEnvPolicy, options.policy);
  request.environment.emplace_back(shim::kEnvRecordDir, utf8(report_dir));
  if (options.max_snapshots >= 0) request.environment.emplace_back(shim::kEnvMaxSnapshots, std::to_string(options.max_snapshots));
  if (options.max_memory_mb > 0) request.environment.emplace_back(shim::kEnvMaxMemoryMb, std::to_string(options.max_memory_mb));
  for (const auto& [name, value] : {std::pair<const char*, const char*>{"MSBUILDDISABLENODEREUSE", "1"},
                                    std::pair<const char*, const char*>{"DOTNET_CLI_USE_MSBUILD_SERVER", "0"}}) {
    if (!std::getenv(name)) request.environment.emplace_back(name, value);
  }
  std::optional<PeriodicSnapshots> periodic;
  if (every) {
    periodic.emplace(every, kWalkTimeoutS);
    request.poll = [&] {
      std::vector<std::pair<long, std::string>> targets;
      for (const shim::ProcessReport& r : read_reports(report_dir)) {
        if (r.state == shim::kStateRecording && pipe_exists(control_endpoint_name(r.pid))) {
          targets.emplace_back(r.pid, control_endpoint_name(r.pid));
        }
      }
      periodic->set_targets(std::move(targets));
    };
  }
  LaunchResult result = run_command(request);
  if (periodic) periodic->stop();

  size_t recorded = 0, sdk = 0;
  for (const shim::ProcessReport& r : read_reports(report_dir)) {
    if (r.state == shim::kStateSdk) ++sdk;
    if (r.state == shim::kStateExists) {
      fmt::print(stderr, "gcsnap: process {} ({}) was not recorded: {} exists (add --force to replace it)\n", r.pid,
                 r.name, r.output);
    }
    if (r.state != shim::kStateRecording) continue;
    ++recorded;
    std::string label = fmt::format("process {} ({})", r.pid, r.name);
    // A killed app leaves its GCs without the index: write it, as on Linux.
    auto finished = finish_recording(r.output);
    if (!finished) {
      fmt::print(stderr, "gcsnap: error: {}\n", describe_error(r.output, finished.error()));
      continue;
    }
    if (finished->found != FileEnd::Complete) {
      fmt::print(stderr, "gcsnap: {} ended (exit code {}): gcsnap wrote the index of its {} complete GCs\n", label,
                 result.statuses.count(r.pid) ? result.statuses.at(r.pid) : result.exit_code, finished->gcs);
    }
    if (print_summary(r.output, label, options.index) == 0) print_no_walk_hint(r.output, options.policy, r.pid);
  }
  if (recorded == 0) {
    const std::string& program = options.command.front();
    std::string why = sdk > 0 ? program + " ran only processes of the .NET SDK, which gcsnap does not record, and no app"
                              : program + " never started the gcsnap profiler: it is not a .NET app, or the runtime "
                                          "did not load the profiler (see any 'gcsnap:' line above)";
    throw CliError("nothing was recorded: " + why, result.exit_code != 0 ? result.exit_code : kExitNotRecorded);
  }
  std::fflush(stdout);
  std::exit(result.exit_code);
}

}  // namespace

void add_record_command(CLI::App& app) {
  auto options = std::make_shared<RecordOptions>();
  auto* cmd = app.add_subcommand("record", "Run a .NET command with the gcsnap profiler and record its GC heaps");
  cmd->add_option("-o,--output", options->output,
                  "Output file; {pid} and {name} give each .NET process its own (default gcsnap-{name}-{pid}.snap)");
  cmd->add_flag("--force", options->force, "Replace the output file if it exists");
  cmd->add_option("--policy", options->policy, "Which GCs get a heap walk: default (gen2 and induced), all, gen2, induced, none");
  cmd->add_option("--max-snapshots", options->max_snapshots, "Stop taking policy snapshots after N")->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-memory", options->max_memory_mb, "Memory budget of the shim in MB (default 1024)")->check(CLI::PositiveNumber);
  cmd->add_option("--pid", options->pid, "Attach to this running .NET process instead of running a command")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--duration", options->duration, "With --pid: record for this long (30s, 5m, 1h), default until Ctrl+C");
  cmd->add_option("--every", options->every, "Also walk the heap at this interval (30s, 5m, 1h), besides the GCs the policy walks");
  cmd->add_flag("--index", options->index, "At the end, build the analysis index of every snapshot");
  cmd->add_option("command", options->command, "The command to run, after --");
  cmd->footer("Examples: gcsnap record -o app.snap -- app.exe\n"
              "          gcsnap record -o app.snap -- dotnet app.dll");
  cmd->callback([options] { run_record(*options); });
}

void add_snapshot_command(CLI::App& app) {
  auto options = std::make_shared<SnapshotOptions>();
  auto* cmd = app.add_subcommand("snapshot", "Take a heap snapshot of a running .NET process now");
  cmd->add_option("pid", options->pid, "Process id")->required();
  cmd->add_option("-o,--output", options->output, "Output file; an existing file is refused");
  cmd->add_flag("--force", options->force, "Replace the output file if it exists");
  cmd->add_option("--timeout", options->timeout_s, "Seconds to wait for the snapshot GC (default 300)")
      ->check(CLI::PositiveNumber);
  cmd->callback([options] { run_snapshot(*options); });
}

void add_ps_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("ps", "List the running .NET processes (those with a diagnostics pipe)");
  cmd->callback([] { run_ps(); });
}

}  // namespace gcsnap::cli
