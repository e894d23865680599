// gcsnap record [options] -- COMMAND [ARGS...]: run a .NET app with the profiler shim
// loaded and print one summary line when it ends (docs/shim.md).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "record_launch.hpp"

namespace gcsnap::cli {
namespace {

struct RecordOptions {
  std::string output;
  std::string policy = "default";
  long long max_snapshots = -1;
  long long max_memory_mb = -1;
  std::vector<std::string> command;
};

/// "app" for `dotnet app.dll`, else the command's file name.
std::string program_name(const std::vector<std::string>& command) {
  auto base = [](const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  std::string name = base(command.front());
  if (name == "dotnet" && command.size() > 1) {
    std::string dll = base(command[1]);
    if (dll.size() > 4 && dll.compare(dll.size() - 4, 4, ".dll") == 0) name = dll.substr(0, dll.size() - 4);
  }
  return name.empty() ? "app" : name;
}

std::string human_size(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < (1u << 20)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
  if (bytes < (1ull << 30)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / 1048576.0);
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / 1073741824.0);
}

bool diagnostics_disabled() {
  for (const char* name : {"DOTNET_EnableDiagnostics", "COMPlus_EnableDiagnostics",
                           "DOTNET_EnableDiagnostics_Profiler", "COMPlus_EnableDiagnostics_Profiler"}) {
    const char* value = std::getenv(name);
    if (value && std::string(value) == "0") return true;
  }
  return false;
}

/// Print the one summary line; return false when the file could not be read.
void print_summary(const std::string& path) {
  auto opened = Recording::open(path);
  if (!opened.is_ok()) {
    fmt::print(stderr, "gcsnap: error: {}\n", describe_error(path, opened.error()));
    return;
  }
  const Recording& recording = **opened;
  uint64_t snapshots = 0;
  DropCounts drops;
  for (const GcEntry& gc : recording.gcs()) {
    snapshots += gc.has_heap_walk() ? 1 : 0;
    drops.objects += gc.drops.objects;
    drops.references += gc.drops.references;
    drops.roots += gc.drops.roots;
    drops.ranges += gc.drops.ranges;
    drops.reasons |= gc.drops.reasons;
  }
  std::string line = fmt::format("gcsnap: recorded {} GCs, {} snapshots, {} in {}", recording.gcs().size(), snapshots,
                                 human_size(recording.file_size()), path);
  if (drops.objects || drops.roots || drops.ranges) {
    line += fmt::format("; dropped {} objects, {} references, {} roots, {} ranges{}", drops.objects,
                        drops.references, drops.roots, drops.ranges,
                        (drops.reasons & drop_reason::kMemoryLimit) ? " (memory limit)" : "");
  } else {
    line += "; nothing dropped";
  }
  if (recording.end() != FileEnd::Complete) line += fmt::format("; file end: {}", file_end_name(recording.end()));
  fmt::print(stderr, "{}\n", line);
}

[[noreturn]] void run_record(const RecordOptions& options) {
  if (options.command.empty()) throw CliError("record: no command given (gcsnap record -- COMMAND ...)", kExitUsage);
  const std::string& p = options.policy;
  if (p != "default" && p != "all" && p != "gen2" && p != "induced" && p != "none") {
    throw CliError("--policy must be one of default, all, gen2, induced, none", kExitUsage);
  }
  std::string shim_path = find_shim();
  std::string requested = options.output.empty()
                              ? fmt::format("gcsnap-{}-{{pid}}.snap", program_name(options.command))
                              : options.output;
  LaunchRequest request;
  request.command = options.command;
  request.output_path = prepare_output(requested);
  request.output_env_name = shim::kEnvOutput;
  request.environment = {
      {"CORECLR_ENABLE_PROFILING", "1"},
      {"CORECLR_PROFILER", std::string(shim::kClsidText)},
      {"CORECLR_PROFILER_PATH", shim_path},
      {shim::kEnvPolicy, options.policy},
  };
  if (options.max_snapshots >= 0) request.environment.emplace_back(shim::kEnvMaxSnapshots, std::to_string(options.max_snapshots));
  if (options.max_memory_mb > 0) request.environment.emplace_back(shim::kEnvMaxMemoryMb, std::to_string(options.max_memory_mb));

  LaunchResult result = run_command(request);
  if (::access(result.output_path.c_str(), F_OK) != 0) {
    std::string why = diagnostics_disabled()
                          ? "profiling is disabled in this environment (DOTNET_EnableDiagnostics=0)"
                          : "it is not a .NET app, or the runtime did not load the profiler (see any 'gcsnap:' line above)";
    throw CliError(fmt::format("nothing was recorded: {} never started the gcsnap profiler: {}",
                               options.command.front(), why),
                   result.exit_code != 0 ? result.exit_code : kExitNotRecorded);
  }
  print_summary(result.output_path);
  std::fflush(stdout);
  std::exit(result.exit_code);
}

}  // namespace

void add_record_command(CLI::App& app) {
  auto options = std::make_shared<RecordOptions>();
  auto* cmd = app.add_subcommand("record", "Run a .NET command with the gcsnap profiler and record its GC heaps");
  cmd->add_option("-o,--output", options->output, "Output file (default gcsnap-<program>-<pid>.snap)");
  cmd->add_option("--policy", options->policy, "Which GCs get a heap walk: default (gen2 and induced), all, gen2, induced, none");
  cmd->add_option("--max-snapshots", options->max_snapshots, "Stop taking policy snapshots after N")->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-memory", options->max_memory_mb, "Memory budget of the shim in MB (default 1024)")->check(CLI::PositiveNumber);
  cmd->add_option("command", options->command, "The command to run, after --")->required();
  cmd->footer("Example: gcsnap record -o app.snap -- dotnet app.dll");
  cmd->callback([options] { run_record(*options); });
}

}  // namespace gcsnap::cli
