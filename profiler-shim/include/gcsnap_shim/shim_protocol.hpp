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
#if defined(_WIN32)
inline constexpr std::string_view kShimFileName = "gcsnap_profiler.dll";
#else
inline constexpr std::string_view kShimFileName = "libgcsnap_profiler.so";
#endif

/// Environment variables the shim reads.
inline constexpr const char* kEnvOutput = "GCSNAP_OUTPUT";
inline constexpr const char* kEnvPolicy = "GCSNAP_POLICY";
inline constexpr const char* kEnvMaxSnapshots = "GCSNAP_MAX_SNAPSHOTS";
inline constexpr const char* kEnvMaxMemoryMb = "GCSNAP_MAX_MEMORY_MB";
/// Bytes: a heap walk each time gen2 + LOH + POH have grown by this much (heap_growth.hpp).
inline constexpr const char* kEnvOnHeapGrowth = "GCSNAP_ON_HEAP_GROWTH";
/// Characters of each string to record as content (format-spec.md §6.24); unset or 0: none.
inline constexpr const char* kEnvCaptureStrings = "GCSNAP_CAPTURE_STRINGS";
/// The most characters per string --capture-strings may ask for.
inline constexpr uint32_t kMaxCaptureChars = 4096;
/// Tests only: read the memory cgroup's files under this directory instead of "/" (the OOM
/// guard's and the memory accounting's figures), so a test can give the shim a tight limit.
inline constexpr const char* kEnvTestCgroupRoot = "GCSNAP_TEST_CGROUP_ROOT";
/// The recording's cap on disk usage, in bytes: older walks are dropped to stay under it.
inline constexpr const char* kEnvMaxSize = "GCSNAP_MAX_SIZE";
inline constexpr const char* kEnvControl = "GCSNAP_CONTROL";  ///< "0" turns the control socket off
inline constexpr const char* kEnvWalkOnly = "GCSNAP_WALK_ONLY";  ///< "1": heap walks store nothing (measuring)
inline constexpr const char* kEnvWalkTimes = "GCSNAP_WALK_TIMES";  ///< "1": a stderr line per heap walk (measuring)
inline constexpr const char* kEnvVerifySizes = "GCSNAP_VERIFY_SIZES";  ///< "1": check every predicted size (tests)
/// "1": one stderr line at startup with the runtime's version, the event masks it accepted and
/// whether the GCTriggered session runs (tests, support).
inline constexpr const char* kEnvDiagnostics = "GCSNAP_DIAGNOSTICS";
/// "0": no GCTriggered EventPipe session on .NET 8 (GC.Collect's GCs then keep the reason
/// "other" that .NET 8 hands the profiler; docs/shim.md, "Runtimes").
inline constexpr const char* kEnvGcReasonEvents = "GCSNAP_GC_REASON_EVENTS";
/// "1": record processes of the .NET SDK too (MSBuild, the dotnet CLI; process_role.hpp).
inline constexpr const char* kEnvRecordSdk = "GCSNAP_RECORD_SDK";
/// "events" or "profiler" (the default): where the GC facts come from (docs/shim.md "Sources").
/// Attach data key: source.
inline constexpr const char* kEnvSource = "GCSNAP_SOURCE";
/// "0": no allocation sampling (docs/shim.md "Allocation sites"). Attach data key: alloc_sites.
inline constexpr const char* kEnvAllocSites = "GCSNAP_ALLOC_SITES";
/// Samples kept per second before the rate cap thins them (0: no cap). Attach data key: alloc_cap.
inline constexpr const char* kEnvAllocCap = "GCSNAP_ALLOC_CAP";
/// Set by `gcsnap record`: a directory where each process the shim loads into leaves a report
/// (kReportSuffix) saying whether and where it records, so that `record` can name every
/// process and file, finish the files of processes that die, and remove their sockets.
inline constexpr const char* kEnvRecordDir = "GCSNAP_RECORD_DIR";

/// A process report: <record dir>/<pid>.proc, written whole (renamed into place), one
/// "key=value" line each: state, pid, name, what, output, control. States:
inline constexpr std::string_view kReportSuffix = ".proc";
inline constexpr std::string_view kStateRecording = "recording";  ///< records into output
inline constexpr std::string_view kStateSdk = "sdk";              ///< a .NET SDK process: not recorded
inline constexpr std::string_view kStateExists = "exists";        ///< output existed already: not recorded
inline constexpr std::string_view kStateFailed = "failed";        ///< could not start recording (stderr says why)

struct ProcessReport {
  std::string state;
  long pid = 0;
  std::string name;     ///< for file names (process_role.hpp)
  std::string what;     ///< what it runs: "Gcsnap.Sample.dll", "dotnet run"
  std::string output;   ///< the file it records into (or would have)
  std::string control;  ///< its control socket, "" when none
};

/// The text of a report (values with a newline have it replaced by '?').
inline std::string format_process_report(const ProcessReport& r) {
  auto line = [](std::string_view key, std::string value) {
    for (char& c : value) c = c == '\n' ? '?' : c;
    return std::string(key) + "=" + value + "\n";
  };
  return line("state", r.state) + line("pid", std::to_string(r.pid)) + line("name", r.name) + line("what", r.what) +
         line("output", r.output) + line("control", r.control);
}

/// Parse a report's text; false when it has no state or no pid (unknown keys are ignored).
inline bool parse_process_report(std::string_view text, ProcessReport& r) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = line.substr(0, eq);
    std::string value(line.substr(eq + 1));
    if (key == "state") r.state = value;
    else if (key == "pid") r.pid = std::strtol(value.c_str(), nullptr, 10);
    else if (key == "name") r.name = value;
    else if (key == "what") r.what = value;
    else if (key == "output") r.output = value;
    else if (key == "control") r.control = value;
  }
  return !r.state.empty() && r.pid > 0;
}

/// Requests and replies on the control channel (a unix socket on Linux, a named pipe on
/// Windows): one line each.
inline constexpr std::string_view kRequestSnapshot = "snapshot\n";
/// Attached sessions only: "output\n" carries the output file's descriptor (SCM_RIGHTS), so
/// the file belongs to the CLI's user and lives in the CLI's mount namespace; reply "ok".
/// On Windows the line is "output <handle>\n": the file's HANDLE, already duplicated into the
/// shim's process (send_control_request does both).
inline constexpr std::string_view kRequestOutput = "output\n";
/// Attached sessions only: finish the file, detach; reply "ok detached" once the runtime has
/// said ProfilerDetachSucceeded, "ok detaching" if it has not within kDetachWaitMs.
inline constexpr std::string_view kRequestDetach = "detach\n";
inline constexpr int kDetachWaitMs = 10000;
inline constexpr std::string_view kReplyOk = "ok";        ///< "ok <gc number>\n"
inline constexpr std::string_view kReplyError = "error";  ///< "error <reason>\n"

/// The client data of an attach request (docs/shim.md "Attach"): text, one "key=value" per
/// line after the first line kAttachDataHeader. Keys: mode (snapshot | record), policy,
/// owner_pid (the CLI; 0 = do not watch), deadline_s (0 = none), max_memory_mb, max_snapshots,
/// on_heap_growth, max_size, source (events | profiler), alloc_sites (0 | 1), alloc_cap.
/// Unknown keys are ignored, so a newer CLI can add some.
inline constexpr std::string_view kAttachDataHeader = "gcsnap-attach 1";

/// HRESULTs InitializeForAttach returns for gcsnap's own reasons (customer bit set, facility
/// 0x0C5): the CLI turns them into a message. Runtime HRESULTs (SetEventMask's) pass through.
inline constexpr uint32_t kAttachErrorClientData = 0xA0C50001u;     ///< client data unreadable
inline constexpr uint32_t kAttachErrorNoInfo = 0xA0C50002u;         ///< no ICorProfilerInfo4+
inline constexpr uint32_t kAttachErrorControlSocket = 0xA0C50003u;  ///< cannot bind the socket
inline constexpr uint32_t kAttachErrorBusy = 0xA0C50004u;           ///< a gcsnap session is live

#if defined(_WIN32)
/// Return the control channel of process PID: the named pipe \\.\pipe\gcsnap-control-<pid>.
inline std::string control_socket_path(long pid) { return "\\\\.\\pipe\\gcsnap-control-" + std::to_string(pid); }
#else
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
#endif

}  // namespace gcsnap::shim
