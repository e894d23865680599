#pragma once
// Other processes as `gcsnap ps`, `snapshot` and `record` see them on Windows
// (windows/processes_windows.cpp): the process list, the runtime's diagnostics pipe, the
// folder of gcsnap.exe. Linux reads the same facts from /proc (process/process_info.hpp).

#include <string>
#include <vector>

namespace gcsnap::cli {

struct ProcessEntry {
  long pid = 0;
  std::string image;  ///< the executable's file name ("app.exe")
};

/// Every process of the system (Toolhelp32 snapshot), by ascending pid.
std::vector<ProcessEntry> list_processes();
/// The entry of PID, or one with pid 0 when there is no such process.
ProcessEntry find_process(long pid);
/// The name of the runtime's diagnostics endpoint of process PID (\\.\pipe\dotnet-diagnostic-PID).
std::string diagnostics_endpoint_name(long pid);
/// The name of the gcsnap shim's control pipe in process PID (\\.\pipe\gcsnap-control-PID).
std::string control_endpoint_name(long pid);
/// Whether a named pipe called NAME exists now (a server listens or is busy).
bool pipe_exists(const std::string& name);
/// The folder that holds this executable.
std::string executable_directory();

}  // namespace gcsnap::cli
