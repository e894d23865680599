// gcsnap record [options] -- COMMAND [ARGS...]: run a .NET app with the profiler shim
// loaded and print one summary line when it ends (docs/shim.md).
// gcsnap record --pid PID [options]: attach the shim to a running process instead, until
// --duration ends or Ctrl+C, then detach (docs/shim.md "Attach").
// The same on both systems: what differs is the platform layer's (platform/*.hpp).
#include <atomic>
#include <chrono>
#include <thread>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "process/attach_client.hpp"
#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "gcsnap/finish_recording.hpp"
#include "platform/console.hpp"
#include "platform/processes.hpp"
#include "process/periodic_snapshots.hpp"
#include "process/record_launch.hpp"
#include "process/recorded_processes.hpp"
#include "process/rss_trigger.hpp"
#include "commands/summary_line.hpp"

namespace gcsnap::cli {
namespace {

struct RecordOptions {
  std::string output;
  bool force = false;        ///< -o may replace an existing file
  std::string policy = "default";
  long long max_snapshots = -1;
  long long max_memory_mb = -1;
  long pid = 0;              ///< --pid: attach instead of running a command
  std::string duration;      ///< --pid: "30s", "5m", "1h" or seconds; "" = until Ctrl+C
  std::string every;         ///< a heap walk at this interval besides the policy's; "" = none
  std::string on_rss;        ///< a heap walk each time the resident size grew by this; "" = none
  std::string on_heap_growth;  ///< a heap walk each time gen2 + LOH + POH grew by this; "" = none
  std::string max_size;      ///< cap on each recording's disk usage; "" = none
  std::string source;        ///< --source: events | profiler; "" = the default (source_for)
  std::vector<std::string> command;
  bool index = false;        ///< --index: build the snapshots' analysis indexes at the end
  bool no_alloc_sites = false;  ///< --no-alloc-sites: no allocation sampling
  /// --capture-strings[=N]: record each string's first N characters (format-spec.md §6.24); 0 = none.
  uint32_t capture_strings = 0;
};

/// N of --capture-strings when it is given without a value.
constexpr uint32_t kDefaultCaptureChars = 64;

std::atomic<bool> g_stop{false};

/// N of --capture-strings[=N]: KDefaultCaptureChars when no value is given.
uint32_t parse_capture_chars(const std::string& text) {
  if (text.empty()) return kDefaultCaptureChars;
  uint64_t n = 0;
  bool number = text.size() <= 9;
  for (char c : text) number = number && c >= '0' && c <= '9', n = n * 10 + static_cast<uint64_t>(c - '0');
  if (!number || n == 0 || n > shim::kMaxCaptureChars)
    throw CliError(fmt::format("--capture-strings '{}' is not a count of characters from 1 to {}", text, shim::kMaxCaptureChars),
                   kExitUsage);
  return static_cast<uint32_t>(n);
}

/// How long one --every heap walk may take before gcsnap gives up on it (as `snapshot`).
constexpr int kWalkTimeoutS = 300;
/// How often --on-rss reads the resident size (platform/process_memory.hpp, once per process).
constexpr int kRssPollMs = 250;

/// Start the --on-rss thread in OUT, when asked for.
void start_rss_trigger(const RecordOptions& options, std::optional<RssTrigger>& out) {
  if (!options.on_rss.empty())
    out.emplace(parse_size(options.on_rss, "--on-rss"), options.max_snapshots, kRssPollMs, kWalkTimeoutS);
}

/// Where the GC facts come from: --source, else the default of this kind of recording. A
/// service one attaches to keeps its background GC (events); a launched app gets roots at every
/// GC and walks by policy (profiler).
std::string source_for(const RecordOptions& options) {
  if (!options.source.empty()) return options.source;
  return options.pid != 0 ? "events" : "profiler";
}

/// record --pid: attach, wait for the duration, Ctrl+C or the process's end, detach.
[[noreturn]] void run_record_attached(const RecordOptions& options) {
  unsigned long long seconds = options.duration.empty() ? 0 : parse_duration(options.duration, "--duration");
  const unsigned long long every = options.every.empty() ? 0 : parse_duration(options.every, "--every");
  ProcessInfo target = inspect_target(options.pid);
  if (has_live_control_channel(target)) {
    throw CliError(fmt::format("process {} is already recorded by gcsnap; use 'gcsnap snapshot {}' to add a snapshot",
                               options.pid, options.pid),
                   kExitProblems);
  }
  AttachOptions attach;
  attach.mode = "record";
  attach.policy = options.policy;
  attach.source = source_for(options);
  attach.alloc_sites = !options.no_alloc_sites;
  attach.output = options.output;
  attach.replace_output = options.force;
  attach.max_memory_mb = options.max_memory_mb;
  attach.max_snapshots = options.max_snapshots;
  if (!options.on_heap_growth.empty()) attach.on_heap_growth_bytes = parse_size(options.on_heap_growth, "--on-heap-growth");
  attach.max_size = options.max_size.empty() ? 0 : parse_size(options.max_size, "--max-size");
  attach.capture_strings = options.capture_strings;
  // The shim detaches by itself a minute after the duration, should this gcsnap be stopped hard.
  attach.deadline_s = seconds ? seconds + 60 : 0;
  stop_on_request(&g_stop);
  AttachedSession session(target, attach);
  fmt::print(stderr, "gcsnap: recording process {} ({}) into {}{}{}\n", target.pid, target.name, session.output_path(),
             seconds ? fmt::format(" for {} s", seconds) : std::string(" until Ctrl+C"),
             every ? fmt::format(", a heap walk every {} s", every) : std::string());
  std::fflush(stderr);
  std::optional<PeriodicSnapshots> periodic;
  if (every) {
    periodic.emplace(every, kWalkTimeoutS);
    periodic->set_targets({{target.pid, session.control_path()}});
  }
  std::optional<RssTrigger> on_rss;
  start_rss_trigger(options, on_rss);
  if (on_rss) on_rss->set_targets({{target.pid, session.control_path()}});
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  bool exited = false;
  while (!g_stop.load() && (seconds == 0 || std::chrono::steady_clock::now() < end)) {
    if (!is_running(target.pid, target.start_time)) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (periodic) periodic->stop();
  if (on_rss) on_rss->stop();
  std::string detached;
  try {
    detached = exited ? "" : session.detach();
  } catch (const CliError& e) {
    // The process ended meanwhile: its shim finished the file at Shutdown.
    exited = !is_running(target.pid, target.start_time);
    if (!exited) throw;
  }
  if (exited) fmt::print(stderr, "gcsnap: process {} exited while recorded\n", target.pid);
  else if (detached != "ok detached") fmt::print(stderr, "gcsnap: warning: process {}: {}\n", target.pid, detached);
  if (exited) {
    // A process killed while recorded left its GCs without the index (finished files are left as they are).
    auto finished = finish_recording(session.output_path());
    if (!finished) fail_on(session.output_path(), finished.error());
  }
  const uint64_t walks =
      print_summary(session.output_path(), fmt::format("process {} ({})", target.pid, target.name), options.index);
  if (walks == 0) {
    print_no_walk_hint(session.output_path(), options.policy, target.pid);
  }
  std::fflush(stdout);
  std::exit(kExitOk);
}

bool diagnostics_disabled() {
  for (const char* name : {"DOTNET_EnableDiagnostics", "COMPlus_EnableDiagnostics",
                           "DOTNET_EnableDiagnostics_Profiler", "COMPlus_EnableDiagnostics_Profiler"}) {
    const char* value = std::getenv(name);
    if (value && std::string(value) == "0") return true;
  }
  return false;
}

/// Refuse, before anything runs, options that do not fit together or do not parse.
void check_record_options(const RecordOptions& options) {
  const std::string& p = options.policy;
  if (p != "default" && p != "all" && p != "gen2" && p != "induced" && p != "none") {
    throw CliError("--policy must be one of default, all, gen2, induced, none", kExitUsage);
  }
  if (!options.source.empty() && options.source != "events" && options.source != "profiler") {
    throw CliError("--source must be one of events, profiler", kExitUsage);
  }
  if (!options.on_rss.empty()) (void)parse_size(options.on_rss, "--on-rss");  // a usage error before anything runs
  if (!options.on_heap_growth.empty()) (void)parse_size(options.on_heap_growth, "--on-heap-growth");
  if (!options.max_size.empty()) (void)parse_size(options.max_size, "--max-size");
  if (options.pid != 0 && !options.command.empty()) {
    throw CliError("record: give either --pid PID or a command after --, not both", kExitUsage);
  }
}

/// The variables the command runs with: the profiler's, the shim's settings (OUTPUT, the report
/// folder RECORD_DIR), and the SDK's that keep build servers from outliving the command.
std::vector<std::pair<std::string, std::string>> record_environment(const RecordOptions& options,
                                                                    const std::string& shim_path,
                                                                    const std::string& output,
                                                                    const std::string& record_dir) {
  auto environment = profiler_environment(std::string(shim::kClsidText), shim_path);
  environment.insert(environment.end(), {
      {shim::kEnvOutput, output},
      {shim::kEnvPolicy, options.policy},
      {shim::kEnvSource, source_for(options)},
      {shim::kEnvRecordDir, record_dir},
  });
  if (options.no_alloc_sites) environment.emplace_back(shim::kEnvAllocSites, "0");
  if (options.max_snapshots >= 0) environment.emplace_back(shim::kEnvMaxSnapshots, std::to_string(options.max_snapshots));
  if (options.max_memory_mb > 0) environment.emplace_back(shim::kEnvMaxMemoryMb, std::to_string(options.max_memory_mb));
  if (!options.on_heap_growth.empty())
    environment.emplace_back(shim::kEnvOnHeapGrowth, std::to_string(parse_size(options.on_heap_growth, "--on-heap-growth")));
  if (options.capture_strings > 0)
    environment.emplace_back(shim::kEnvCaptureStrings, std::to_string(options.capture_strings));
  if (!options.max_size.empty())
    environment.emplace_back(shim::kEnvMaxSize, std::to_string(parse_size(options.max_size, "--max-size")));
  // `dotnet run/test/watch` build first: no MSBuild node or build server may outlive the
  // command with the profiler variables in its environment (the user's own settings win).
  for (const auto& [name, value] : {std::pair<const char*, const char*>{"MSBUILDDISABLENODEREUSE", "1"},
                                    std::pair<const char*, const char*>{"DOTNET_CLI_USE_MSBUILD_SERVER", "0"}}) {
    if (!std::getenv(name)) environment.emplace_back(name, value);
  }
  return environment;
}

/// Throw the error of a command that recorded no process, saying why as far as gcsnap can tell.
[[noreturn]] void fail_nothing_recorded(const RecordOptions& options, const RecordedProcesses& processes,
                                        int exit_code) {
  const std::string& program = options.command.front();
  std::string why =
      diagnostics_disabled()
          ? program + " never started the gcsnap profiler: profiling is disabled in this environment "
                      "(DOTNET_EnableDiagnostics=0)"
      : processes.sdk_count() > 0
          ? program + " ran only processes of the .NET SDK (the dotnet CLI, MSBuild, the compiler), which gcsnap "
                      "does not record, and no app"
          : program + " never started the gcsnap profiler: it is not a .NET app, or the runtime did not load the "
                      "profiler (see any 'gcsnap:' line above)";
  throw CliError("nothing was recorded: " + why, exit_code != 0 ? exit_code : kExitNotRecorded);
}

[[noreturn]] void run_record(const RecordOptions& options) {
  check_record_options(options);
  if (options.pid != 0) run_record_attached(options);
  if (!options.duration.empty()) throw CliError("record: --duration goes with --pid", kExitUsage);
  const unsigned long long every = options.every.empty() ? 0 : parse_duration(options.every, "--every");
  if (options.command.empty()) {
    throw CliError("record: no command given (gcsnap record -- COMMAND ..., or gcsnap record --pid PID)", kExitUsage);
  }
  std::string shim_path = find_shim();
  // The shim expands the pattern in each process: {name} from its main assembly (process_role.hpp).
  std::string output = prepare_output(options.output.empty() ? "gcsnap-{name}-{pid}.snap" : options.output, options.force);
  RecordedProcesses processes;
  processes.set_summarize([&options](const std::string& path, const std::string& label, long pid) {
    if (print_summary(path, label, options.index) == 0) print_no_walk_hint(path, options.policy, pid);
  });
  std::optional<PeriodicSnapshots> periodic;
  if (every) periodic.emplace(every, kWalkTimeoutS);
  std::optional<RssTrigger> on_rss;
  start_rss_trigger(options, on_rss);
  LaunchRequest request;
  request.command = options.command;
  request.environment = record_environment(options, shim_path, output, processes.directory());
  request.poll = [&] {
    processes.poll();
    if (periodic) periodic->set_targets(processes.running_controls());
    if (on_rss) on_rss->set_targets(processes.running_controls());
  };
  request.also_wait_for = [&] { return processes.running(); };
  request.on_waiting = [&](const std::vector<long>& pids) {
    std::string list;
    for (long pid : pids) list += (list.empty() ? "" : ", ") + std::to_string(pid);
    fmt::print(stderr, "gcsnap: {} ended; waiting for the recorded process(es) {} to end (Ctrl+C stops them)\n",
               options.command.front(), list);
    std::fflush(stderr);
  };

  LaunchResult result;
  try {
    result = run_command(request);
  } catch (...) {
    processes.remove_directory();
    throw;
  }
  if (periodic) periodic->stop();
  if (on_rss) on_rss->stop();
  processes.finish(result.statuses);
  processes.remove_directory();
  if (processes.recorded_count() == 0) fail_nothing_recorded(options, processes, result.exit_code);
  std::fflush(stdout);
  std::exit(result.exit_code);
}

}  // namespace

void add_record_command(CLI::App& app) {
  auto options = std::make_shared<RecordOptions>();
  auto* cmd = app.add_subcommand("record", "Run a .NET command with the gcsnap profiler and record its GC heaps");
  cmd->add_option("-o,--output", options->output,
                  "Output file; {pid} and {name} give each .NET process its own (default gcsnap-{name}-{pid}.snap; "
                  "with --pid gcsnap-<name>-<pid>-<yyyymmdd-hhmmss>.snap)");
  cmd->add_flag("--force", options->force, "Replace the output file if it exists");
  cmd->add_option("--policy", options->policy, "Which GCs get a heap walk: default (gen2 and induced), all, gen2, induced, none");
  cmd->add_option("--source", options->source,
                  "Where the GC facts come from: profiler (the profiling API's GC callbacks; background GC is off) "
                  "or events (the runtime's own event stream; background GC stays on, roots only at walks). "
                  "Default: events with --pid, profiler otherwise");
  cmd->add_flag("--no-alloc-sites", options->no_alloc_sites,
                "Do not sample allocation sites (by default: AllocationSampled on .NET 10+, allocation ticks on 8 "
                "and 9, each with its stack; gcsnap allocs shows them)");
  cmd->add_option("--max-snapshots", options->max_snapshots, "Stop taking policy snapshots after N (and --on-rss, --on-heap-growth walks after N each)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-memory", options->max_memory_mb, "Memory cap of the shim in MB (default 1024); a heap walk that would exceed it is abandoned")->check(CLI::PositiveNumber);
  cmd->add_option("--max-size", options->max_size,
                  "Keep each recording's disk usage under SIZE (512M, 2G) by dropping the oldest heap walks' objects; "
                  "every GC's roots, ranges and types stay");
  cmd->add_option("--pid", options->pid, "Attach to this running .NET process instead of running a command")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--duration", options->duration, "With --pid: record for this long (30s, 5m, 1h), default until Ctrl+C");
  cmd->add_option("--every", options->every,
                  "Also walk the heap at this interval (30s, 5m, 1h), besides the GCs the policy walks: "
                  "walks with object identity for 'leaks'");
  cmd->add_option("--on-rss", options->on_rss,
                  "Also walk the heap when the resident size first reaches SIZE (512M, 2G) and each time it has "
                  "grown by SIZE more");
  cmd->add_option("--on-heap-growth", options->on_heap_growth,
                  "Also walk the heap when gen2 + LOH + POH have grown by SIZE since the first GC, and each time "
                  "by SIZE more (the shim decides at each GC, no polling)");
  auto capture = std::make_shared<std::string>();
  auto* capture_option =
      cmd->add_option("--capture-strings", *capture,
                      fmt::format("Also record the first N characters of every string (default N: {}; at most {}). "
                                  "Without it strings are recorded as length and keyed hash only: no content",
                                  kDefaultCaptureChars, shim::kMaxCaptureChars))
          ->expected(0, 1)
          ->type_name("N");
  cmd->add_flag("--index", options->index,
                "At the end, build the analysis index of every snapshot (FILE.N.gcidx) for fast answers");
  cmd->add_option("command", options->command, "The command to run, after --");
  cmd->footer("Examples: gcsnap record -o app.snap -- dotnet app.dll\n"
              "          gcsnap record --pid 1234 --duration 30s\n"
              "          gcsnap record --pid 1234 --every 30s --policy none   (then: gcsnap leaks FILE)\n"
              "          gcsnap record --pid 1234 --on-rss 512M --max-snapshots 10 --policy none\n"
              "Costs: attached (--pid) with the default --source events, background GC stays on; with\n"
              "--source profiler it is off and every GC is longer (a root scan each: tens of ms on a\n"
              "300 k-object heap); each heap walk (policy, --every) stops the app ~0.4-0.5 s\n"
              "per million objects; the shim's memory is capped by --max-memory; the analysis index later\n"
              "written beside FILE is about as large as a small recording and 2.5-3x each heap walk of a\n"
              "large heap (docs/cli.md \"What attaching costs\").");
  cmd->callback([options, capture, capture_option] {
    if (capture_option->count() > 0) options->capture_strings = parse_capture_chars(*capture);
    run_record(*options);
  });
}

}  // namespace gcsnap::cli
