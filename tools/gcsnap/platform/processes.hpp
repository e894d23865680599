#pragma once
// Other processes as `gcsnap ps`, `snapshot` and `record` see them, one implementation per
// operating system: /proc, the runtime's Unix sockets in the process's TMPDIR and the shim's
// control socket on Linux (posix/processes_posix.cpp); a Toolhelp32 snapshot, the named pipes
// \\.\pipe\dotnet-diagnostic-{pid} and \\.\pipe\gcsnap-control-{pid} on Windows
// (windows/processes_windows.cpp). The command code asks only through these functions.

#include <optional>
#include <string>
#include <vector>

namespace gcsnap::cli {

struct ProcessInfo {
  long pid = 0;                      ///< as this process sees it
  long ns_pid = 0;                   ///< in the process's own pid namespace (its socket names use it)
  bool same_pid_namespace = true;    ///< a pid it is told (the CLI's) means the same process there
  std::string root;                  ///< "" or "/proc/PID/root" (another mount namespace)
  std::string tmpdir = "/tmp";       ///< its TMPDIR as it sees it (Linux)
  std::vector<std::string> command;  ///< its argv; empty where the system does not tell (Windows)
  std::string name;                  ///< "app" for `dotnet app.dll` on Linux, the image ("app.exe") on Windows
  unsigned long uid = 0;             ///< its owner (Linux)
  bool environ_readable = false;     ///< false: another user's process, and we are not root (Linux)
  std::string diagnostics_disabled_by; ///< "DOTNET_EnableDiagnostics_Profiler=0" etc., "" when none
  unsigned long long start_time = 0; ///< when it started, in the system's units; 0 when unknown
};

/// Describe PID; nullopt when there is no such process.
std::optional<ProcessInfo> read_process_info(long pid);
/// Return the start time of process PID, or 0 when there is none (or it cannot be read).
unsigned long long process_start_time(long pid);
/// Return true when PID runs (and is not a zombie); with START_TIME (not 0), only when it is
/// the process that started then (not a later one that got its pid).
bool is_running(long pid, unsigned long long start_time = 0);
/// Return the pids of every process, ascending.
std::vector<long> list_pids();

/// Return the runtime's diagnostics endpoint of P as this process can reach it (a socket path,
/// a pipe name), or "" when it has none.
std::string find_diagnostics_endpoint(const ProcessInfo& p);
/// Why P has no diagnostics endpoint, for "is not a .NET process (WHY)".
std::string missing_endpoint_reason(const ProcessInfo& p);
/// The line `gcsnap ps` prints when it finds no .NET process.
std::string no_dotnet_process_text();
/// Why this process may not attach to P ("belongs to another user ..."), or "" when it may.
std::string access_problem(const ProcessInfo& p);

/// Return the gcsnap control channel of P as this process can reach it (a socket path, a pipe name).
std::string control_endpoint_of(const ProcessInfo& p);
/// Return true when P has a gcsnap control channel that answers (a socket file left by a
/// process that died and whose pid was reused refuses a connect).
bool has_live_control_channel(const ProcessInfo& p);
/// Whether the control channel at PATH exists now (a socket file, a pipe).
bool control_channel_exists(const std::string& path);
/// Remove the control channel a killed process left at PATH (a socket file; nothing on Windows,
/// where a pipe ends with its process).
void remove_stale_control_channel(const std::string& path) noexcept;
/// Return the pid of a descendant of PID that has a gcsnap control channel (the app of a
/// `gcsnap record`, also one `dotnet run` started), or 0.
long recorded_child_of(long pid);
/// Whether the gcsnap shim is loaded in PID (it stays after a detach).
bool has_shim_loaded(long pid);

}  // namespace gcsnap::cli
