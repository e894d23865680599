#pragma once
// The transport of the .NET runtime's diagnostics IPC, one implementation per operating system:
// a Unix socket ($TMPDIR/dotnet-diagnostic-{pid}-{start}-socket) on Linux
// (posix/diagnostics_transport_posix.cpp), the named pipe \\.\pipe\dotnet-diagnostic-{pid} on
// Windows (windows/diagnostics_transport_windows.cpp). The messages are the same on both
// (process/diagnostics_ipc.hpp encodes and decodes them).

#include <string>
#include <string_view>

namespace gcsnap::cli {

/// Send MESSAGE (one whole IPC message) to the runtime listening at ENDPOINT (a socket path or
/// a pipe name) and return its reply: the 20-byte header and the payload the header's size
/// announces. Every wait is bounded by TIMEOUT_S. Throws CliError with one line on failure
/// (no such endpoint, another user's process, no or short reply).
std::string diagnostics_exchange(const std::string& endpoint, std::string_view message, int timeout_s);

}  // namespace gcsnap::cli
