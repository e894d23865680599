#pragma once
// Name the calling thread for debuggers and process viewers (posix/thread_name_posix.cpp,
// windows/thread_name_windows.cpp). A hint: failures are ignored.

namespace gcsnap::platform {

/// Name the calling thread NAME (at most 15 characters are kept on Linux).
void set_thread_name(const char* name) noexcept;

}  // namespace gcsnap::platform
