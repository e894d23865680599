// platform/process_memory.hpp on Windows: the working set, which Task Manager shows as the
// process's memory and which is what /proc/PID/statm's resident set is on Linux.
#include <windows.h>
#include <psapi.h>

#include "platform/process_memory.hpp"

namespace gcsnap::cli {

uint64_t resident_bytes(long pid) {
  if (pid <= 0) return 0;
  HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
  if (!process) return 0;
  PROCESS_MEMORY_COUNTERS counters{};
  counters.cb = sizeof(counters);
  const BOOL ok = GetProcessMemoryInfo(process, &counters, sizeof(counters));
  CloseHandle(process);
  return ok ? static_cast<uint64_t>(counters.WorkingSetSize) : 0;
}

}  // namespace gcsnap::cli
