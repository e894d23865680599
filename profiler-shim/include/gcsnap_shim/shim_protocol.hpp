#pragma once
/// What `gcsnap record`/`gcsnap snapshot` and the profiler shim agree on: the CLSID, the
/// environment variables, the shim's file name and the control socket (docs/shim.md).
/// Header-only, standard library only, so the CLI can include it without linking the shim.

#include <cstdlib>
#include <string>
#include <string_view>

namespace gcsnap::shim {

/// The shim's COM class id, as CORECLR_PROFILER wants it.
inline constexpr std::string_view kClsidText = "{12AFB2D9-48B7-44B1-92F2-A85820746D7E}";
inline constexpr std::string_view kShimFileName = "libgcsnap_profiler.so";

/// Environment variables the shim reads.
inline constexpr const char* kEnvOutput = "GCSNAP_OUTPUT";
inline constexpr const char* kEnvPolicy = "GCSNAP_POLICY";
inline constexpr const char* kEnvMaxSnapshots = "GCSNAP_MAX_SNAPSHOTS";
inline constexpr const char* kEnvMaxMemoryMb = "GCSNAP_MAX_MEMORY_MB";
inline constexpr const char* kEnvControl = "GCSNAP_CONTROL";  ///< "0" turns the control socket off
inline constexpr const char* kEnvWalkOnly = "GCSNAP_WALK_ONLY";  ///< "1": heap walks store nothing (measuring)

/// Requests and replies on the control socket: one line each.
inline constexpr std::string_view kRequestSnapshot = "snapshot\n";
inline constexpr std::string_view kReplyOk = "ok";        ///< "ok <gc number>\n"
inline constexpr std::string_view kReplyError = "error";  ///< "error <reason>\n"

/// Return the directory for control sockets: $TMPDIR, or /tmp.
inline std::string control_socket_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = (tmp && *tmp) ? tmp : "/tmp";
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

/// Return the control socket path of process PID: <dir>/gcsnap-<pid>.ctl.
inline std::string control_socket_path(long pid, const std::string& dir = control_socket_dir()) {
  return dir + "/gcsnap-" + std::to_string(pid) + ".ctl";
}

}  // namespace gcsnap::shim
