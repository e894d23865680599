// platform/processes.hpp on Windows: a Toolhelp32 snapshot for the process list and the
// parents, GetProcessTimes for a process's identity over time, and the named pipes of the
// runtime (\\.\pipe\dotnet-diagnostic-{pid}) and of the shim (\\.\pipe\gcsnap-control-{pid}).
#include <windows.h>
#include <tlhelp32.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gcsnap_shim/shim_protocol.hpp"
#include "platform/processes.hpp"
#include "platform/windows/windows_text.hpp"

namespace gcsnap::cli {
namespace {

struct Entry {
  long pid = 0;
  long parent = 0;
  std::string image;  ///< the executable's file name ("app.exe")
};

/// Every process of the system, by ascending pid.
std::vector<Entry> snapshot_processes() {
  std::vector<Entry> out;
  HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snapshot == INVALID_HANDLE_VALUE) return out;
  PROCESSENTRY32W entry{};
  entry.dwSize = sizeof(entry);
  for (BOOL more = Process32FirstW(snapshot, &entry); more; more = Process32NextW(snapshot, &entry)) {
    out.push_back({static_cast<long>(entry.th32ProcessID), static_cast<long>(entry.th32ParentProcessID),
                   narrow(entry.szExeFile)});
  }
  CloseHandle(snapshot);
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.pid < b.pid; });
  return out;
}

std::string diagnostics_pipe_name(long pid) { return "\\\\.\\pipe\\dotnet-diagnostic-" + std::to_string(pid); }

// WaitNamedPipe does not connect (a probe with CreateFile would take one of the server's
// instances): it fails with ERROR_FILE_NOT_FOUND when no pipe has the name.
bool pipe_exists(const std::string& name) {
  if (WaitNamedPipeW(widen(name).c_str(), 1)) return true;
  return GetLastError() != ERROR_FILE_NOT_FOUND && GetLastError() != ERROR_BAD_PATHNAME;
}

}  // namespace

std::optional<ProcessInfo> read_process_info(long pid) {
  if (pid <= 0) return std::nullopt;
  for (const Entry& e : snapshot_processes()) {
    if (e.pid != pid) continue;
    ProcessInfo p;
    p.pid = pid;
    p.ns_pid = pid;
    p.name = e.image;
    p.environ_readable = true;  // the command line comes from the runtime (query_process_info)
    p.start_time = process_start_time(pid);
    return p;
  }
  return std::nullopt;
}

unsigned long long process_start_time(long pid) {
  if (pid <= 0) return 0;
  HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
  if (!process) return 0;
  FILETIME created{}, exited{}, kernel{}, user{};
  const BOOL ok = GetProcessTimes(process, &created, &exited, &kernel, &user);
  CloseHandle(process);
  if (!ok) return 0;
  return static_cast<unsigned long long>(created.dwHighDateTime) << 32 | created.dwLowDateTime;
}

bool is_running(long pid, unsigned long long start_time) {
  if (pid <= 0) return false;
  HANDLE process = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
  // A process of another user or an elevated one refuses the handle but is there.
  if (!process) return GetLastError() == ERROR_ACCESS_DENIED && start_time == 0;
  const bool running = WaitForSingleObject(process, 0) == WAIT_TIMEOUT;
  CloseHandle(process);
  return running && (start_time == 0 || process_start_time(pid) == start_time);
}

std::vector<long> list_pids() {
  std::vector<long> pids;
  for (const Entry& e : snapshot_processes()) {
    if (e.pid != 0) pids.push_back(e.pid);
  }
  return pids;
}

std::string find_diagnostics_endpoint(const ProcessInfo& p) {
  std::string name = diagnostics_pipe_name(p.pid);
  return pipe_exists(name) ? name : std::string();
}

std::string missing_endpoint_reason(const ProcessInfo& p) { return "no diagnostics pipe " + diagnostics_pipe_name(p.pid); }

std::string no_dotnet_process_text() { return "no .NET process is running (none with a diagnostics pipe)"; }

// An elevated process refuses the pipe itself: DiagnosticsChannel says so.
std::string access_problem(const ProcessInfo&) { return ""; }

std::string control_endpoint_of(const ProcessInfo& p) { return shim::control_socket_path(p.pid); }

bool has_live_control_channel(const ProcessInfo& p) { return pipe_exists(control_endpoint_of(p)); }

bool control_channel_exists(const std::string& path) { return pipe_exists(path); }

void remove_stale_control_channel(const std::string&) noexcept {}

long recorded_child_of(long pid) {
  // Breadth first: `gcsnap record -- cmd /c app.exe` records a grandchild.
  const std::vector<Entry> all = snapshot_processes();
  std::vector<long> queue{pid};
  for (size_t next = 0; next < queue.size() && queue.size() < 4096; ++next) {
    for (const Entry& e : all) {
      if (e.parent == queue[next] && e.pid != queue[next]) queue.push_back(e.pid);
    }
    if (next == 0) continue;
    ProcessInfo child;
    child.pid = queue[next];
    if (has_live_control_channel(child)) return queue[next];
  }
  return 0;
}

bool has_shim_loaded(long pid) {
  HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPMODULE | TH32CS_SNAPMODULE32, static_cast<DWORD>(pid));
  if (snapshot == INVALID_HANDLE_VALUE) return false;
  const std::wstring shim = widen(std::string(shim::kShimFileName));
  MODULEENTRY32W entry{};
  entry.dwSize = sizeof(entry);
  bool found = false;
  for (BOOL more = Module32FirstW(snapshot, &entry); more && !found; more = Module32NextW(snapshot, &entry)) {
    found = CompareStringOrdinal(entry.szModule, -1, shim.c_str(), -1, TRUE) == CSTR_EQUAL;
  }
  CloseHandle(snapshot);
  return found;
}

}  // namespace gcsnap::cli
