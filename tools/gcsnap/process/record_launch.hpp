#pragma once
// gcsnap record's process side: find the shim, check the output path, run the command with
// the profiler environment, forward signals, wait for the command and for the processes it
// started that are recorded, and return its exit status.

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gcsnap::cli {

struct LaunchRequest {
  std::vector<std::string> command;            ///< argv of the app
  std::vector<std::pair<std::string, std::string>> environment;  ///< set in the child
  /// Called about every 50 ms while waiting (and once more at the end): e.g. read what the
  /// recorded processes reported.
  std::function<void()> poll;
  /// Processes besides the command that must end before run_command returns, and that get
  /// the signals forwarded to gcsnap: the recorded processes still running (an app that
  /// `dotnet run` started).
  std::function<std::vector<long>()> also_wait_for;
  /// Called once when the command has ended but ALSO_WAIT_FOR still names processes.
  std::function<void(const std::vector<long>&)> on_waiting;
};

struct LaunchResult {
  int exit_code = 0;     ///< the command's exit code, or 128+signal
  long pid = 0;
  /// waitpid statuses of the processes gcsnap reaped: the command, and the processes left
  /// behind by a parent that ended first (gcsnap is their subreaper).
  std::map<long, int> statuses;
};

/// Return the shim next to this executable (build tree, the Windows zip), in
/// <prefix>/<libdir>/gcsnap (installed), or $GCSNAP_SHIM. Throws CliError when none exists.
std::string find_shim();
/// Make OUTPUT absolute and check its directory is writable. A "{pid}" or "{name}" pattern
/// may appear in the file name only (the shim expands it). An existing file of a name
/// without a pattern is removed when REPLACE is set and refused otherwise ("add --force").
/// Throws CliError when it cannot be written.
std::string prepare_output(const std::string& output, bool replace);
/// Return true when OUTPUT holds "{pid}" or "{name}".
bool has_output_pattern(const std::string& output);
/// Return the variables that make a .NET runtime load the shim at SHIM_PATH as the profiler
/// CLSID: the CORECLR_ names every runtime reads and the DOTNET_ names .NET 11 also reads
/// (and prefers), each with the _64 path that wins over the plain one. Setting all of them
/// means a profiler the user configured under either prefix never takes gcsnap's place.
std::vector<std::pair<std::string, std::string>> profiler_environment(const std::string& clsid,
                                                                      const std::string& shim_path);
/// Return the variables that make a .NET Framework 4.x runtime load the shim at start
/// (COR_ENABLE_PROFILING, COR_PROFILER, COR_PROFILER_PATH): `record` sets them on Windows.
std::vector<std::pair<std::string, std::string>> framework_profiler_environment(const std::string& clsid,
                                                                                const std::string& shim_path);
/// Start the command (POSIX: fork and exec, process/record_launch.cpp; Windows: CreateProcessW,
/// platform/windows/launch_windows.cpp), then wait as LaunchRequest says. On Windows Ctrl+C
/// reaches the app through the console and gcsnap waits on; STATUSES holds exit codes there.
/// POSIX: Signals sent to gcsnap (SIGINT, SIGTERM,
/// SIGHUP, SIGQUIT) go to the command and to ALSO_WAIT_FOR's processes; the terminal's
/// (Ctrl+C), which the whole process group receives, are not sent twice. Throws CliError
/// (exit 127) when the command cannot be executed.
LaunchResult run_command(const LaunchRequest& request);

}  // namespace gcsnap::cli
