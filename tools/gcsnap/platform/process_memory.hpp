#pragma once
// The memory figure `record --on-rss` watches, one implementation per operating system:
// the resident set from /proc/PID/statm on Linux (posix/process_memory_posix.cpp), the
// working set from GetProcessMemoryInfo on Windows (windows/process_memory_windows.cpp).

#include <cstdint>

namespace gcsnap::cli {

/// Resident bytes of process PID now (Linux: resident set; Windows: working set), or 0 when
/// it cannot be read (no such process, no access).
uint64_t resident_bytes(long pid);

}  // namespace gcsnap::cli
