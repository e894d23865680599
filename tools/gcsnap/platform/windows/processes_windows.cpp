#include <windows.h>
#include <tlhelp32.h>

#include <algorithm>
#include <string>
#include <vector>

#include "platform/control_channel.hpp"
#include "platform/processes.hpp"
#include "platform/windows/windows_text.hpp"

namespace gcsnap::cli {

std::vector<ProcessEntry> list_processes() {
  std::vector<ProcessEntry> out;
  HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snapshot == INVALID_HANDLE_VALUE) return out;
  PROCESSENTRY32W entry{};
  entry.dwSize = sizeof(entry);
  for (BOOL more = Process32FirstW(snapshot, &entry); more; more = Process32NextW(snapshot, &entry)) {
    out.push_back({static_cast<long>(entry.th32ProcessID), narrow(entry.szExeFile)});
  }
  CloseHandle(snapshot);
  std::sort(out.begin(), out.end(), [](const ProcessEntry& a, const ProcessEntry& b) { return a.pid < b.pid; });
  return out;
}

ProcessEntry find_process(long pid) {
  for (const ProcessEntry& p : list_processes()) {
    if (p.pid == pid) return p;
  }
  return {};
}

std::string diagnostics_endpoint_name(long pid) { return "\\\\.\\pipe\\dotnet-diagnostic-" + std::to_string(pid); }

std::string control_endpoint_name(long pid) { return "\\\\.\\pipe\\gcsnap-control-" + std::to_string(pid); }

// WaitNamedPipe does not connect (a probe with CreateFile would take one of the server's
// instances): it fails with ERROR_FILE_NOT_FOUND when no pipe has the name.
bool pipe_exists(const std::string& name) {
  if (WaitNamedPipeW(widen(name).c_str(), 1)) return true;
  return GetLastError() != ERROR_FILE_NOT_FOUND && GetLastError() != ERROR_BAD_PATHNAME;
}

std::string executable_directory() {
  std::wstring path(32768, L'\0');
  DWORD n = GetModuleFileNameW(nullptr, path.data(), static_cast<DWORD>(path.size()));
  path.resize(n);
  size_t slash = path.find_last_of(L"\\/");
  return slash == std::wstring::npos ? "." : narrow(path.substr(0, slash));
}

}  // namespace gcsnap::cli

namespace gcsnap::cli {

bool control_channel_exists(const std::string& path) { return pipe_exists(path); }

}  // namespace gcsnap::cli
