// platform/launch.hpp on Windows: CreateProcessW with an environment block into a job object
// (so that the processes a launcher such as `cmd /c` or `dotnet run` starts are known, and
// their exit codes), the console's Ctrl+C, and the shim and output paths as Windows names them.
#include <windows.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gcsnap_shim/shim_protocol.hpp"
#include "errors/cli_error.hpp"
#include "platform/launch.hpp"
#include "platform/windows/windows_text.hpp"

namespace gcsnap::cli {
namespace {

// Ctrl+C and Ctrl+Break reach every process on the console, the app included: gcsnap lets the
// app decide and keeps waiting for it, so that the file is finished before gcsnap returns.
BOOL WINAPI on_console_event(DWORD event) {
  return event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT ? TRUE : FALSE;
}

bool is_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

/// ARG quoted for CommandLineToArgvW and the C runtime: quotes around an argument with a space,
/// a tab or a quote (or an empty one); a run of backslashes doubled before a quote.
std::wstring quote_argument(const std::wstring& arg) {
  if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) return arg;
  std::wstring out = L"\"";
  for (size_t i = 0;; ++i) {
    size_t slashes = 0;
    while (i < arg.size() && arg[i] == L'\\') {
      ++slashes;
      ++i;
    }
    if (i == arg.size()) {
      out.append(slashes * 2, L'\\');
      break;
    }
    if (arg[i] == L'"') {
      out.append(slashes * 2 + 1, L'\\');
      out.push_back(L'"');
    } else {
      out.append(slashes, L'\\');
      out.push_back(arg[i]);
    }
  }
  out.push_back(L'"');
  return out;
}

struct NoCase {
  bool operator()(const std::wstring& a, const std::wstring& b) const {
    return CompareStringOrdinal(a.c_str(), static_cast<int>(a.size()), b.c_str(), static_cast<int>(b.size()), TRUE) ==
           CSTR_LESS_THAN;
  }
};

/// This process's environment with ADDED set (names compare without case, as Windows does),
/// as a CreateProcessW block: sorted "NAME=value\0" strings, then one more "\0".
std::wstring environment_block(const std::vector<std::pair<std::string, std::string>>& added) {
  std::map<std::wstring, std::wstring, NoCase> variables;
  if (wchar_t* block = GetEnvironmentStringsW()) {
    for (const wchar_t* p = block; *p; p += wcslen(p) + 1) {
      std::wstring entry(p);
      size_t eq = entry.find(L'=', 1);  // "=C:=C:\dir" entries start with '='
      if (eq != std::wstring::npos) variables[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    FreeEnvironmentStringsW(block);
  }
  for (const auto& [name, value] : added) variables[widen(name)] = widen(value);
  std::wstring out;
  for (const auto& [name, value] : variables) out += name + L"=" + value + L'\0';
  out += L'\0';
  return out;
}

/// How long, after the command ended, gcsnap waits for a process the command left running to
/// report (its runtime loads the shim some 100 ms to 1 s after it starts, more under Wine).
constexpr ULONGLONG kReportGraceMs = 5000;

/// The folder that holds this executable.
std::string executable_directory() {
  std::wstring path(32768, L'\0');
  DWORD n = GetModuleFileNameW(nullptr, path.data(), static_cast<DWORD>(path.size()));
  path.resize(n);
  size_t slash = path.find_last_of(L"\\/");
  return slash == std::wstring::npos ? "." : narrow(path.substr(0, slash));
}

/// The processes of a job: the command and every process it starts (unless one breaks away).
/// Each is opened once seen, so that its exit code can be read after it ended.
class JobProcesses {
 public:
  JobProcesses() : job_(CreateJobObjectW(nullptr, nullptr)) {}
  ~JobProcesses() {
    for (auto& [pid, handle] : handles_) CloseHandle(handle);
    if (job_) CloseHandle(job_);  // no KILL_ON_JOB_CLOSE: the processes run on as they would
  }
  JobProcesses(const JobProcesses&) = delete;
  JobProcesses& operator=(const JobProcesses&) = delete;

  /// Put PROCESS (started suspended) in the job; false when the system refuses (gcsnap itself
  /// in a job that forbids it): then only the command is followed.
  bool add(HANDLE process) { return job_ && AssignProcessToJobObject(job_, process); }
  /// Open the processes that joined since the last call.
  void refresh() {
    if (!job_) return;
    std::vector<unsigned char> buffer(sizeof(JOBOBJECT_BASIC_PROCESS_ID_LIST) + 1024 * sizeof(ULONG_PTR));
    auto* list = reinterpret_cast<JOBOBJECT_BASIC_PROCESS_ID_LIST*>(buffer.data());
    if (!QueryInformationJobObject(job_, JobObjectBasicProcessIdList, list, static_cast<DWORD>(buffer.size()), nullptr))
      return;
    for (DWORD i = 0; i < list->NumberOfProcessIdsInList; ++i) {
      const long pid = static_cast<long>(list->ProcessIdList[i]);
      if (handles_.count(pid)) continue;
      HANDLE h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
      if (h) handles_[pid] = h;
    }
  }
  /// Whether a process of the job other than EXCEPT still runs.
  bool has_running(long except) const {
    for (const auto& [pid, handle] : handles_) {
      if (pid != except && WaitForSingleObject(handle, 0) == WAIT_TIMEOUT) return true;
    }
    return false;
  }
  /// Add the exit code of every process seen that has ended to STATUSES.
  void collect(std::map<long, int>& statuses) const {
    for (const auto& [pid, handle] : handles_) {
      DWORD code = 0;
      if (WaitForSingleObject(handle, 0) == WAIT_OBJECT_0 && GetExitCodeProcess(handle, &code)) {
        statuses.emplace(pid, static_cast<int>(code));
      }
    }
  }

 private:
  HANDLE job_;
  std::map<long, HANDLE> handles_;
};

}  // namespace

std::string find_shim() {
  if (const char* explicit_path = std::getenv("GCSNAP_SHIM"); explicit_path && *explicit_path) {
    if (is_file(path_of(explicit_path))) {
      return utf8(std::filesystem::absolute(path_of(explicit_path)));
    }
    throw CliError(std::string("shim not found: GCSNAP_SHIM=") + explicit_path + " is not a file", kExitNotRecorded);
  }
  const std::string name(shim::kShimFileName);
  std::string here = executable_directory();
  for (const char* relative : {"", "..\\lib\\gcsnap\\"}) {
    std::filesystem::path candidate = path_of(here + "\\" + relative + name);
    if (is_file(candidate)) return utf8(std::filesystem::weakly_canonical(candidate));
  }
  throw CliError(fmt::format("shim not found: no {} next to {} (set GCSNAP_SHIM=C:\\path\\to\\{})", name, here, name),
                 kExitNotRecorded);
}

LaunchResult run_command(const LaunchRequest& request) {
  std::wstring command_line;
  for (const std::string& arg : request.command) {
    command_line += (command_line.empty() ? L"" : L" ") + quote_argument(widen(arg));
  }
  std::wstring environment = environment_block(request.environment);
  SetConsoleCtrlHandler(on_console_event, TRUE);
  STARTUPINFOW startup{};
  startup.cb = sizeof(startup);
  PROCESS_INFORMATION child{};
  // lpApplicationName null: the first word is looked up as Windows does (the folder of
  // gcsnap.exe, the current one, the system's, then PATH; ".exe" added when missing).
  // Suspended until it is in the job, so that nothing it starts escapes it.
  if (!CreateProcessW(nullptr, command_line.data(), nullptr, nullptr, TRUE,
                      CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED, environment.data(), nullptr, &startup, &child)) {
    DWORD err = GetLastError();
    const std::string& cmd = request.command.front();
    if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND || err == ERROR_INVALID_NAME) {
      throw CliError("command not found: " + cmd, 127);
    }
    throw CliError("cannot run " + cmd + ": " + system_message(err),
                   err == ERROR_ACCESS_DENIED || err == ERROR_BAD_EXE_FORMAT ? 126 : 127);
  }
  JobProcesses job;
  (void)job.add(child.hProcess);
  ResumeThread(child.hThread);
  CloseHandle(child.hThread);
  LaunchResult result;
  result.pid = static_cast<long>(child.dwProcessId);
  bool told_waiting = false;
  ULONGLONG ended_at = 0;  // when the command ended (GetTickCount64), 0 while it runs
  for (;;) {
    const bool child_running = WaitForSingleObject(child.hProcess, 50) == WAIT_TIMEOUT;
    job.refresh();
    if (request.poll) request.poll();
    if (child_running) continue;
    std::vector<long> others = request.also_wait_for ? request.also_wait_for() : std::vector<long>{};
    others.erase(std::remove(others.begin(), others.end(), result.pid), others.end());
    if (others.empty()) {
      // A launcher (`cmd /c start app.exe`) may end before its app's runtime has loaded the
      // shim and reported: while processes it started run, give them a moment to report.
      if (ended_at == 0) ended_at = GetTickCount64();
      if (job.has_running(result.pid) && GetTickCount64() - ended_at < kReportGraceMs) {
        Sleep(50);
        continue;
      }
      break;
    }
    if (!told_waiting && request.on_waiting) request.on_waiting(others);
    told_waiting = true;
    Sleep(50);
  }
  DWORD code = 1;
  GetExitCodeProcess(child.hProcess, &code);
  CloseHandle(child.hProcess);
  result.exit_code = static_cast<int>(code);
  result.statuses[result.pid] = static_cast<int>(code);
  job.collect(result.statuses);
  return result;
}

std::string describe_end(long pid, const std::map<long, int>& statuses) {
  auto found = statuses.find(pid);
  if (found == statuses.end()) return "ended before finishing its file";
  return fmt::format("ended (exit code {})", static_cast<unsigned>(found->second));
}

bool has_dotnet_framework() noexcept { return true; }

}  // namespace gcsnap::cli
