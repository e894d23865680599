#pragma once
// The operating-system parts of the shim, one small function per need, so that the recording
// logic has no #ifdef: posix/shim_os_posix.cpp and windows/shim_os_windows.cpp implement them
// (the control channel has its own pair, control_server.hpp). None of them throws but
// std::bad_alloc where a string or vector is returned.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

/// What the shim exports (DllGetClassObject only): the linker version script on Linux keeps
/// everything else in; on Windows gcsnap_profiler.def names the exports.
#if defined(_WIN32)
#define GCSNAP_SHIM_EXPORT
#else
#define GCSNAP_SHIM_EXPORT __attribute__((visibility("default")))
#endif

namespace gcsnap::shim::os {

/// An open file: a descriptor on POSIX, a HANDLE on Windows (what Writer::from_handle takes).
using FileHandle = intptr_t;
inline constexpr FileHandle kNoFile = -1;

/// This process's id.
long current_pid() noexcept;
/// Write TEXT to the process's stderr, whole or as much as it takes.
void write_stderr(std::string_view text) noexcept;
/// Name the calling thread for debuggers and process viewers (a hint).
void name_this_thread(const char* name) noexcept;

struct ThreadClocks {
  uint64_t wall_ns = 0;       ///< a monotonic clock
  uint64_t cpu_ns = 0;        ///< CPU time of the calling thread
  uint64_t minor_faults = 0;  ///< page faults of the calling thread (0 where unknown: Windows)
};
ThreadClocks read_thread_clocks() noexcept;
/// This process's resident memory in bytes now, or 0 where it cannot be read.
uint64_t resident_bytes() noexcept;

/// BYTES (a multiple of 4096) of zeroed, private, read-write memory, or nullptr. Large
/// mappings ask for huge pages where the system takes a hint (Linux).
void* map_memory(size_t bytes) noexcept;
/// Give back what map_memory returned.
void unmap_memory(void* p, size_t bytes) noexcept;
/// Ask the system to back [P, P + BYTES) with memory now (a hint; may do nothing).
void populate_memory(void* p, size_t bytes) noexcept;

/// How this process was started, for process_role.hpp. Paths use '/' on every system.
struct CommandLine {
  std::vector<std::string> argv;
  std::string exe;  ///< the running program's full path
  std::string cwd;
};
CommandLine this_command_line();
/// True when PATH names a plain file.
bool is_regular_file(const std::string& path) noexcept;

/// Create PATH for reading and writing; it must not exist (a child process that inherited the
/// environment never gets the same file). kNoFile on failure, with EXISTED set when PATH was
/// there already, and WHY saying what went wrong.
FileHandle create_new_file(const std::string& path, bool& existed, std::string& why);
/// Close F (a handle a Writer did not take).
void close_file(FileHandle f) noexcept;
/// Delete PATH (ignoring failures).
void remove_file(const std::string& path) noexcept;
/// Write TEXT to PATH whole: into PATH.tmp, then renamed over PATH. False on failure.
bool write_whole_file(const std::string& path, std::string_view text) noexcept;

/// False only when process PID is known to be gone (a process of another user lives).
bool process_exists(long pid) noexcept;
/// Keep the shim's code loaded after the runtime unloads it at a detach: a thread of ours may
/// still be returning through it. Linux links with -z nodelete instead (does nothing there).
void keep_module_loaded() noexcept;

}  // namespace gcsnap::shim::os
