#pragma once
// A client of the .NET runtime's diagnostics IPC, only as far as gcsnap needs it: the
// Profiler command set's AttachProfiler (docs/design.md "Attach"; dotnet/runtime
// src/native/eventpipe/ds-protocol.h and ds-profiler-protocol.c for the layout).

#include <cstdint>
#include <string>
#include <string_view>

namespace gcsnap::cli {

struct AttachProfilerRequest {
  uint32_t timeout_ms = 10000;  ///< how long the runtime may wait for a background GC in progress
  std::string_view clsid_text;  ///< "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}"
  std::string profiler_path;    ///< as the target process sees it
  std::string client_data;      ///< handed to InitializeForAttach as is
};

/// Encode REQUEST as one IPC message (20-byte header + payload). Throws CliError when it does
/// not fit the header's 16-bit size.
std::string encode_attach_profiler(const AttachProfilerRequest& request);

/// Send REQUEST to the runtime's diagnostics ENDPOINT (the Unix socket's path, or the named
/// pipe's name on Windows: platform/diagnostics_transport.hpp) and return its HRESULT.
/// Every wait is bounded by IO_TIMEOUT_S. Throws CliError on transport failures (connect
/// refused: a stale socket; EACCES: another user's process; no or short reply).
uint32_t attach_profiler(const std::string& endpoint, const AttachProfilerRequest& request, int io_timeout_s);

/// What the runtime says of its process (the Process command set's ProcessInfo).
struct RuntimeProcessInfo {
  uint64_t pid = 0;          ///< as the runtime knows it
  std::string command_line;  ///< as the runtime read it
  std::string os;            ///< "Windows", "Linux" ...
  std::string arch;          ///< "x64" ...
};

/// Ask the runtime at ENDPOINT for its ProcessInfo. Throws CliError as attach_profiler does.
RuntimeProcessInfo query_process_info(const std::string& endpoint, int io_timeout_s);

/// One line that says what a failed attach HRESULT means for the user.
std::string describe_attach_result(uint32_t hresult);

}  // namespace gcsnap::cli
