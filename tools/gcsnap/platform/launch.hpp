#pragma once
// Starting the command of `gcsnap record -- COMMAND` and waiting for it, one implementation
// per operating system: fork and exec, signal forwarding and a subreaper on Linux
// (posix/launch_posix.cpp); CreateProcessW with an environment block and the console's
// Ctrl+C on Windows (windows/launch_windows.cpp). Also where the shim is, which the systems
// name differently. What is the same on both (the profiler variables, the output path's rules)
// is process/record_launch.hpp's.

#include <functional>
#include <map>
#include <string>
#include <utility>
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
  /// `dotnet run` or `cmd /c` started).
  std::function<std::vector<long>()> also_wait_for;
  /// Called once when the command has ended but ALSO_WAIT_FOR still names processes.
  std::function<void(const std::vector<long>&)> on_waiting;
};

struct LaunchResult {
  int exit_code = 0;     ///< the command's exit code, or 128+signal (POSIX)
  long pid = 0;
  /// How the processes gcsnap saw end ended, by pid (describe_end reads them): POSIX waitpid
  /// statuses of the command and of the processes left behind by a parent that ended first
  /// (gcsnap is their subreaper); Windows exit codes of the command and of the processes it
  /// started (a job object holds them).
  std::map<long, int> statuses;
};

/// Return the shim next to this executable (build tree, the Windows zip), in
/// <prefix>/<libdir>/gcsnap (installed), or $GCSNAP_SHIM. Throws CliError when none exists.
std::string find_shim();
/// Start the command, then wait as LaunchRequest says: for the command, and then for
/// ALSO_WAIT_FOR's processes. Processes the command started that still run when it ends (the
/// app of a launcher that exits at once) get up to 5 s to appear in ALSO_WAIT_FOR. POSIX: signals sent to gcsnap (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
/// go to the command and to ALSO_WAIT_FOR's processes; the terminal's (Ctrl+C), which the
/// whole process group receives, are not sent twice. Windows: Ctrl+C reaches the app through
/// the console and gcsnap waits on. Throws CliError (exit 127, 126) when the command cannot be
/// executed.
LaunchResult run_command(const LaunchRequest& request);
/// How process PID left its file unfinished, from STATUSES (LaunchResult::statuses): "was
/// killed by SIGKILL before finishing its file", "exited with code 0 but left its file
/// unfinished" (POSIX), "ended (exit code 1)" (Windows), or "ended before finishing its file"
/// when gcsnap did not see it end.
std::string describe_end(long pid, const std::map<long, int>& statuses);
/// Whether this system runs .NET Framework 4.x apps, whose runtime reads profiler variables of
/// its own (COR_PROFILER ...): false on Linux, true on Windows.
bool has_dotnet_framework() noexcept;

}  // namespace gcsnap::cli
