#pragma once
// Whether a shim's control channel is there: a Unix socket file on Linux
// (posix/control_channel_posix.cpp), the named pipe \\.\pipe\gcsnap-control-{pid} on Windows
// (windows/processes_windows.cpp). The requests themselves go through
// gcsnap_shim/control_client.hpp on both.

#include <string>

namespace gcsnap::cli {

/// Whether the control channel at PATH (a socket path or a pipe name) exists now.
bool control_channel_exists(const std::string& path);

}  // namespace gcsnap::cli
