#pragma once
/// What `gcsnap record`/`gcsnap snapshot` and the profiler shim agree on: the CLSID, the
/// environment variables, the shim's file name and the control socket (docs/shim.md).
/// Header-only, standard library only, so the CLI can include it without linking the shim.

#include <cstdint>
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
inline constexpr const char* kEnvVerifySizes = "GCSNAP_VERIFY_SIZES";  ///< "1": check every predicted size (tests)

/// Requests and replies on the control socket: one line each.
inline constexpr std::string_view kRequestSnapshot = "snapshot\n";
/// Attached sessions only: "output\n" carries the output file's descriptor (SCM_RIGHTS), so
/// the file belongs to the CLI's user and lives in the CLI's mount namespace; reply "ok".
inline constexpr std::string_view kRequestOutput = "output\n";
/// Attached sessions only: finish the file, detach; reply "ok detached" once the runtime has
/// said ProfilerDetachSucceeded, "ok detaching" if it has not within kDetachWaitMs.
inline constexpr std::string_view kRequestDetach = "detach\n";
inline constexpr int kDetachWaitMs = 10000;
inline constexpr std::string_view kReplyOk = "ok";        ///< "ok <gc number>\n"
inline constexpr std::string_view kReplyError = "error";  ///< "error <reason>\n"

/// The client data of an attach request (docs/shim.md "Attach"): text, one "key=value" per
/// line after the first line kAttachDataHeader. Keys: mode (snapshot | record), policy,
/// owner_pid (the CLI; 0 = do not watch), deadline_s (0 = none), max_memory_mb, max_snapshots.
/// Unknown keys are ignored, so a newer CLI can add some.
inline constexpr std::string_view kAttachDataHeader = "gcsnap-attach 1";

/// HRESULTs InitializeForAttach returns for gcsnap's own reasons (customer bit set, facility
/// 0x0C5): the CLI turns them into a message. Runtime HRESULTs (SetEventMask's) pass through.
inline constexpr uint32_t kAttachErrorClientData = 0xA0C50001u;     ///< client data unreadable
inline constexpr uint32_t kAttachErrorNoInfo = 0xA0C50002u;         ///< no ICorProfilerInfo4+
inline constexpr uint32_t kAttachErrorControlSocket = 0xA0C50003u;  ///< cannot bind the socket
inline constexpr uint32_t kAttachErrorBusy = 0xA0C50004u;           ///< a gcsnap session is live

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
