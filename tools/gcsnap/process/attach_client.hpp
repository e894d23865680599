#pragma once
// The CLI's side of an attached session (docs/shim.md "Attach"): check the target and the
// output, attach the shim through the diagnostics IPC, hand it the output file over the
// control channel, and talk to it there (snapshot, detach). The same on every system. A session that is not detached
// explicitly is detached by the destructor, and by the shim's own watchdog if gcsnap dies.

#include <cstdint>
#include <string>
#include <string_view>

#include "platform/processes.hpp"

namespace gcsnap::cli {

/// Send REQUEST (one line with '\n') to the control channel at PATH, with FILE (a descriptor,
/// a HANDLE: platform/files.hpp AttachOutput) attached when >= 0, and return the reply line
/// without '\n'. Throws CliError on failure or timeout.
std::string control_request(const std::string& path, std::string_view request, int timeout_s, intptr_t file = -1);

/// Describe PID, or throw CliError with the one line that says why it cannot be snapshot:
/// no such process, a `gcsnap record` process (names its app), another user's process.
ProcessInfo inspect_target(long pid);

struct AttachOptions {
  std::string mode = "snapshot";  ///< snapshot | record
  std::string policy = "none";
  std::string source = "profiler";  ///< events | profiler (settings.hpp RecordSource)
  std::string output;             ///< as given; "" = gcsnap-<name>-<pid>-<yyyymmdd-hhmmss>.snap
  bool replace_output = false;    ///< an existing output file is replaced (false: refused)
  unsigned long long deadline_s = 0;
  long long max_memory_mb = -1;
  long long max_snapshots = -1;
  uint64_t on_heap_growth_bytes = 0;  ///< --on-heap-growth: a walk each time gen2+LOH+POH grew by this; 0 = none
  uint64_t max_size = 0;          ///< cap on the recording's disk usage in bytes; 0 = none
  bool alloc_sites = true;        ///< record: sample allocation sites (--no-alloc-sites: false)
  uint32_t capture_strings = 0;   ///< --capture-strings N: characters of each string recorded; 0 = none
};

class AttachedSession {
 public:
  /// Attach the shim into TARGET (which has no gcsnap control channel) and hand it the output.
  /// Throws CliError with one line when it cannot; the process is then left as it was.
  AttachedSession(const ProcessInfo& target, const AttachOptions& options);
  ~AttachedSession();
  AttachedSession(const AttachedSession&) = delete;
  AttachedSession& operator=(const AttachedSession&) = delete;

  /// Ask for a snapshot now; return the GC number. Throws CliError.
  std::string snapshot(int timeout_s);
  /// Finish the file and detach; return the shim's reply ("ok detached", or why not).
  std::string detach();
  const std::string& output_path() const { return output_path_; }
  const std::string& control_path() const { return control_path_; }

 private:
  ProcessInfo target_;
  std::string output_path_;
  std::string control_path_;
  bool detached_ = false;
};

}  // namespace gcsnap::cli
