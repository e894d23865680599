#pragma once
// The transport of the .NET runtime's diagnostics IPC, one implementation per operating system:
// a Unix socket ($TMPDIR/dotnet-diagnostic-{pid}-{start}-socket) on Linux
// (posix/diagnostics_transport_posix.cpp), the named pipe \\.\pipe\dotnet-diagnostic-{pid} on
// Windows (windows/diagnostics_transport_windows.cpp). The messages and their framing are the
// same on both (process/diagnostics_ipc.cpp encodes, sends and reads them).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gcsnap::cli {

/// One connection to a runtime's diagnostics endpoint. Every wait ends at the deadline given
/// when it was made.
class DiagnosticsChannel {
 public:
  /// Connect to the runtime listening at ENDPOINT (a socket path or a pipe name); TIMEOUT_S
  /// bounds every wait from now on. Throws CliError with one line (no such endpoint, another
  /// user's process).
  DiagnosticsChannel(const std::string& endpoint, int timeout_s);
  ~DiagnosticsChannel();
  DiagnosticsChannel(const DiagnosticsChannel&) = delete;
  DiagnosticsChannel& operator=(const DiagnosticsChannel&) = delete;

  /// Send all of MESSAGE. Throws CliError when the runtime does not take it in time or the
  /// transport fails.
  void send(std::string_view message);
  /// Read at least one and at most SIZE bytes of the reply into DATA; return how many. Throws
  /// CliError when nothing comes in time or the runtime closes the connection.
  size_t receive(char* data, size_t size);

 private:
  std::chrono::steady_clock::time_point deadline_;
  int timeout_s_;
  intptr_t handle_ = -1;  ///< the socket (POSIX) or the pipe's HANDLE (Windows)
  intptr_t event_ = 0;    ///< Windows: the event of the overlapped I/O
};

}  // namespace gcsnap::cli
