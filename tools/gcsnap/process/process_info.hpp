#pragma once
// What gcsnap needs to know about another process before attaching to it, read from /proc:
// its command line, owner, TMPDIR and namespaces (a process in a container is reached through
// /proc/PID/root, under its own pid), and where its diagnostics and control sockets are.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace gcsnap::cli {

struct ProcessInfo {
  long pid = 0;                      ///< as this process sees it
  long ns_pid = 0;                   ///< in the process's own pid namespace (its socket names use it)
  bool same_pid_namespace = true;    ///< a pid it is told (the CLI's) means the same process there
  std::string root;                  ///< "" or "/proc/PID/root" (another mount namespace)
  std::string tmpdir = "/tmp";       ///< its TMPDIR as it sees it
  std::vector<std::string> command;  ///< its argv
  std::string name;                  ///< program_name(command)
  uid_t uid = 0;
  bool environ_readable = false;     ///< false: another user's process, and we are not root
  std::string diagnostics_disabled_by; ///< "DOTNET_EnableDiagnostics_Profiler=0" etc., "" when none
  unsigned long long start_time = 0; ///< /proc/PID/stat field 22: the socket name's key
};

/// "app" for `dotnet app.dll`, else the command's file name.
std::string program_name(const std::vector<std::string>& command);
/// Read what /proc says about PID; nullopt when there is no such process.
std::optional<ProcessInfo> read_process_info(long pid);
/// Return the start time of process PID (/proc/PID/stat field 22), or 0 when there is none.
unsigned long long process_start_time(long pid);
/// Return true when PID runs and is not a zombie; with START_TIME (not 0), only when it is
/// the process that started then (not a later one that got its pid).
bool is_running(long pid, unsigned long long start_time = 0);
/// Return the pids of every process in /proc, ascending.
std::vector<long> list_pids();

/// Return the runtime's diagnostics socket of P as this process can reach it, or "".
std::string find_diagnostics_socket(const ProcessInfo& p);
/// Return the gcsnap control socket path of P as this process can reach it.
std::string control_socket_of(const ProcessInfo& p);
/// Return true when a socket file exists at PATH.
bool socket_exists(const std::string& path);
/// Return true when P has a gcsnap control socket that answers a connect (a file left by a
/// process that died and whose pid was reused refuses it).
bool has_live_control_socket(const ProcessInfo& p);
/// Return the pid of a descendant of PID that has a gcsnap control socket (the app of a
/// `gcsnap record`, also one `dotnet run` started), or 0.
long recorded_child_of(long pid);

}  // namespace gcsnap::cli
