#pragma once
// The Windows side of the platform layer reports errors as the POSIX side does, in errno.
#include <windows.h>

#include <cerrno>
#include <string>

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
  if (path.empty()) return {};
  const int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path.data(), static_cast<int>(path.size()), nullptr, 0);
  if (n <= 0) return {};
  std::wstring out(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path.data(), static_cast<int>(path.size()), out.data(), n);
  return out;
}

inline HANDLE to_handle(intptr_t f) noexcept { return reinterpret_cast<HANDLE>(f); }

}  // namespace gcsnap::platform
