// record_launch.hpp on Windows: CreateProcessW with an environment block, the console's Ctrl+C,
// and the shim and output paths as Windows names them.
#include <windows.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gcsnap_shim/shim_protocol.hpp"
#include "output/cli_error.hpp"
#include "platform/processes.hpp"
#include "platform/windows/windows_text.hpp"
#include "process/record_launch.hpp"

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

std::string prepare_output(const std::string& output, bool replace) {
  if (output.empty() || output.back() == '/' || output.back() == '\\') {
    throw CliError("output path '" + output + "' names no file", kExitUsage);
  }
  std::filesystem::path path = std::filesystem::absolute(path_of(output));
  std::filesystem::path dir = path.parent_path();
  if (has_output_pattern(utf8(dir))) {
    throw CliError("output path '" + output + "': {pid} and {name} may appear in the file name only", kExitUsage);
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw CliError("output path not writable: directory " + utf8(dir) + " does not exist", kExitNotRecorded);
  }
  // Whether the folder takes a new file is known only by making one.
  std::filesystem::path probe = dir / fmt::format(".gcsnap-probe-{}", GetCurrentProcessId());
  HANDLE h = CreateFileW(probe.wstring().c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                         FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    throw CliError("output path not writable: " + utf8(dir) + ": " + system_message(GetLastError()),
                   kExitNotRecorded);
  }
  CloseHandle(h);
  if (!has_output_pattern(utf8(path)) && std::filesystem::exists(path, ec)) {
    if (std::filesystem::is_directory(path, ec)) {
      throw CliError("output path not writable: " + utf8(path) + " is a directory", kExitNotRecorded);
    }
    if (!replace) throw CliError(utf8(path) + " exists; add --force to replace it", kExitNotRecorded);
    if (!DeleteFileW(path.wstring().c_str())) {
      throw CliError("output path not writable: cannot replace " + utf8(path) + ": " +
                         system_message(GetLastError()),
                     kExitNotRecorded);
    }
  }
  return utf8(path);
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
  if (!CreateProcessW(nullptr, command_line.data(), nullptr, nullptr, TRUE, CREATE_UNICODE_ENVIRONMENT,
                      environment.data(), nullptr, &startup, &child)) {
    DWORD err = GetLastError();
    const std::string& cmd = request.command.front();
    if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND || err == ERROR_INVALID_NAME) {
      throw CliError("command not found: " + cmd, 127);
    }
    throw CliError("cannot run " + cmd + ": " + system_message(err),
                   err == ERROR_ACCESS_DENIED || err == ERROR_BAD_EXE_FORMAT ? 126 : 127);
  }
  CloseHandle(child.hThread);
  LaunchResult result;
  result.pid = static_cast<long>(child.dwProcessId);
  bool told_waiting = false;
  for (;;) {
    const bool child_running = WaitForSingleObject(child.hProcess, 50) == WAIT_TIMEOUT;
    if (request.poll) request.poll();
    if (child_running) continue;
    std::vector<long> others = request.also_wait_for ? request.also_wait_for() : std::vector<long>{};
    others.erase(std::remove(others.begin(), others.end(), result.pid), others.end());
    if (others.empty()) break;
    if (!told_waiting && request.on_waiting) request.on_waiting(others);
    told_waiting = true;
    Sleep(50);
  }
  DWORD code = 1;
  GetExitCodeProcess(child.hProcess, &code);
  CloseHandle(child.hProcess);
  result.exit_code = static_cast<int>(code);
  result.statuses[result.pid] = static_cast<int>(code);
  return result;
}

}  // namespace gcsnap::cli
