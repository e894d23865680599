#pragma once
// Name the calling thread for debuggers and process viewers (thread_name_posix.cpp,
// thread_name_windows.cpp). A hint: failures are ignored. Its own small target
// (gcsnap_thread_name): libgcsnap's compression threads and the profiler shim's threads use it.

namespace gcsnap::platform {

/// Name the calling thread NAME (at most 15 characters are kept on Linux).
void set_thread_name(const char* name) noexcept;

}  // namespace gcsnap::platform
