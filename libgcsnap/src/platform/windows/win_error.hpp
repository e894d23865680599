#pragma once
// The Windows side of the platform layer reports errors as the POSIX side does, in errno.
#include <windows.h>

#include <cerrno>
#include <string>

#include "gcsnap_utf16_text.hpp"

namespace gcsnap::platform {

// Map GetLastError() (or CODE) onto the nearest errno value, store it in errno, and return false.
inline bool fail_with_last_error(DWORD code = GetLastError()) noexcept {
  switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH: errno = ENOENT; break;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_WRITE_PROTECT: errno = EACCES; break;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: errno = EEXIST; break;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: errno = ENOSPC; break;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_COMMITMENT_LIMIT: errno = ENOMEM; break;
    case ERROR_INVALID_HANDLE: errno = EBADF; break;
    case ERROR_INVALID_FUNCTION:
    case ERROR_NOT_SUPPORTED: errno = ENOSYS; break;
    case ERROR_INVALID_PARAMETER: errno = EINVAL; break;
    case ERROR_DIRECTORY: errno = ENOTDIR; break;
    case ERROR_FILENAME_EXCED_RANGE: errno = ENAMETOOLONG; break;
    default: errno = EIO; break;
  }
  return false;
}

// PATH (UTF-8) as UTF-16 for the W functions; empty when PATH is not valid UTF-8.
inline std::wstring widen(const std::string& path) {
  return gcsnap::text::utf16_from_utf8<wchar_t>(path).value_or(std::wstring());
}

inline HANDLE to_handle(intptr_t f) noexcept { return reinterpret_cast<HANDLE>(f); }

}  // namespace gcsnap::platform
