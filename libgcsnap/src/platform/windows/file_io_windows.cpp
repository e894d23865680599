#include <io.h>
#include <windows.h>
#include <winioctl.h>

#include <limits>

#include "platform/file_io.hpp"
#include "platform/windows/win_error.hpp"

namespace gcsnap::platform {
namespace {

// Reads and writes go in pieces a DWORD can count.
constexpr size_t kMaxIo = size_t{1} << 30;

OVERLAPPED at_offset(uint64_t at) noexcept {
  OVERLAPPED o{};
  o.Offset = static_cast<DWORD>(at & 0xffffffffu);
  o.OffsetHigh = static_cast<DWORD>(at >> 32);
  return o;
}

// ReadFile and WriteFile at an offset move a synchronous handle's file pointer past what they
// read or wrote; pread and pwrite do not. The recording's sink writes at the pointer while the
// size cap rewrites earlier section headers at their offsets: the pointer is put back.
class KeepFilePointer {
 public:
  explicit KeepFilePointer(HANDLE h) noexcept : h_(h) {
    LARGE_INTEGER zero{};
    kept_ = SetFilePointerEx(h_, zero, &at_, FILE_CURRENT) != 0;  // false on a pipe: nothing to keep
  }
  ~KeepFilePointer() {
    if (kept_) (void)SetFilePointerEx(h_, at_, nullptr, FILE_BEGIN);
  }
  KeepFilePointer(const KeepFilePointer&) = delete;
  KeepFilePointer& operator=(const KeepFilePointer&) = delete;

 private:
  HANDLE h_;
  LARGE_INTEGER at_{};
  bool kept_ = false;
};

}  // namespace

FileHandle open_file(const std::string& path, OpenMode mode) noexcept {
  std::wstring wide;
  try {
    wide = widen(path);
  } catch (...) {
    errno = ENOMEM;
    return kNoFile;
  }
  if (wide.empty()) {
    errno = ENOENT;
    return kNoFile;
  }
  DWORD access = GENERIC_READ;
  DWORD disposition = OPEN_EXISTING;
  if (mode == OpenMode::ReadWrite) access = GENERIC_READ | GENERIC_WRITE;
  if (mode == OpenMode::CreateWrite) {
    access = GENERIC_WRITE;
    disposition = CREATE_ALWAYS;
  }
  // Sharing everything keeps POSIX behaviour: readers of a file being written, and the rename
  // of a new analysis index over one still open elsewhere.
  const DWORD share = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
  HANDLE h = CreateFileW(wide.c_str(), access, share, nullptr, disposition, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    fail_with_last_error();
    return kNoFile;
  }
  return reinterpret_cast<FileHandle>(h);
}

FileHandle duplicate_file(FileHandle f) noexcept {
  HANDLE copy = nullptr;
  if (!DuplicateHandle(GetCurrentProcess(), to_handle(f), GetCurrentProcess(), &copy, 0, FALSE, DUPLICATE_SAME_ACCESS)) {
    fail_with_last_error();
    return kNoFile;
  }
  return reinterpret_cast<FileHandle>(copy);
}

bool close_file(FileHandle f) noexcept { return CloseHandle(to_handle(f)) ? true : fail_with_last_error(); }

bool file_info(FileHandle f, FileInfo& info) noexcept {
  info.regular = GetFileType(to_handle(f)) == FILE_TYPE_DISK;
  if (!info.regular) return true;
  BY_HANDLE_FILE_INFORMATION about{};
  if (!GetFileInformationByHandle(to_handle(f), &about)) return fail_with_last_error();
  info.regular = (about.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
  info.size = (uint64_t{about.nFileSizeHigh} << 32) | about.nFileSizeLow;
  // FILETIME counts 100 ns since 1601-01-01; 11644473600 s separate that from 1970.
  const uint64_t ticks = (uint64_t{about.ftLastWriteTime.dwHighDateTime} << 32) | about.ftLastWriteTime.dwLowDateTime;
  constexpr uint64_t kEpochTicks = 11'644'473'600ull * 10'000'000ull;
  info.mtime_ns = ticks > kEpochTicks ? (ticks - kEpochTicks) * 100 : 0;
  return true;
}

int64_t read_at(FileHandle f, void* out, size_t n, uint64_t at) noexcept {
  KeepFilePointer keep(to_handle(f));
  OVERLAPPED o = at_offset(at);
  DWORD got = 0;
  if (!ReadFile(to_handle(f), out, static_cast<DWORD>(n < kMaxIo ? n : kMaxIo), &got, &o)) {
    if (GetLastError() == ERROR_HANDLE_EOF) return 0;
    fail_with_last_error();
    return -1;
  }
  return got;
}

int64_t write_at(FileHandle f, const void* p, size_t n, uint64_t at) noexcept {
  KeepFilePointer keep(to_handle(f));
  OVERLAPPED o = at_offset(at);
  DWORD wrote = 0;
  if (!WriteFile(to_handle(f), p, static_cast<DWORD>(n < kMaxIo ? n : kMaxIo), &wrote, &o)) {
    fail_with_last_error();
    return -1;
  }
  return wrote;
}

int64_t write_some(FileHandle f, const void* p, size_t n) noexcept {
  DWORD wrote = 0;
  if (!WriteFile(to_handle(f), p, static_cast<DWORD>(n < kMaxIo ? n : kMaxIo), &wrote, nullptr)) {
    fail_with_last_error();
    return -1;
  }
  return wrote;
}

bool seek_file(FileHandle f, uint64_t at) noexcept {
  LARGE_INTEGER to{};
  to.QuadPart = static_cast<LONGLONG>(at);
  return SetFilePointerEx(to_handle(f), to, nullptr, FILE_BEGIN) ? true : fail_with_last_error();
}

// SetEndOfFile cuts at the file pointer; the pointer is put back where it was.
bool resize_file(FileHandle f, uint64_t size) noexcept {
  LARGE_INTEGER zero{}, here{}, to{};
  if (!SetFilePointerEx(to_handle(f), zero, &here, FILE_CURRENT)) return fail_with_last_error();
  to.QuadPart = static_cast<LONGLONG>(size);
  if (!SetFilePointerEx(to_handle(f), to, nullptr, FILE_BEGIN)) return fail_with_last_error();
  const bool ok = SetEndOfFile(to_handle(f)) != 0;
  const DWORD code = GetLastError();
  (void)SetFilePointerEx(to_handle(f), here, nullptr, FILE_BEGIN);
  return ok ? true : fail_with_last_error(code);
}

bool sync_file(FileHandle f) noexcept {
  if (FlushFileBuffers(to_handle(f))) return true;
  const DWORD code = GetLastError();
  // A console or a pipe cannot be flushed to a disk: as POSIX fsync's EINVAL.
  if (code == ERROR_INVALID_HANDLE || code == ERROR_INVALID_FUNCTION || GetFileType(to_handle(f)) != FILE_TYPE_DISK) {
    errno = EINVAL;
    return false;
  }
  return fail_with_last_error(code);
}

// No ranged write-back on Windows: the sink falls back to plain writes, as on a pipe.
bool start_write_back(FileHandle f, uint64_t at, uint64_t n) noexcept {
  (void)f, (void)at, (void)n;
  errno = ENOSYS;
  return false;
}

bool drop_written_pages(FileHandle f, uint64_t at, uint64_t n) noexcept {
  (void)f, (void)at, (void)n;
  errno = ENOSYS;
  return false;
}

// The bytes the file occupies: for a sparse file what FSCTL_SET_ZERO_DATA has not freed. The
// compression information gives it on NTFS (as GetCompressedFileSize does, which reads it);
// where it is not answered (FAT; Wine), the allocation size of the standard information.
bool allocated_bytes(FileHandle f, uint64_t& out) noexcept {
  FILE_COMPRESSION_INFO compression{};
  if (GetFileInformationByHandleEx(to_handle(f), FileCompressionInfo, &compression, sizeof(compression))) {
    out = static_cast<uint64_t>(compression.CompressedFileSize.QuadPart);
    return true;
  }
  FILE_STANDARD_INFO standard{};
  if (!GetFileInformationByHandleEx(to_handle(f), FileStandardInfo, &standard, sizeof(standard)))
    return fail_with_last_error();
  out = static_cast<uint64_t>(standard.AllocationSize.QuadPart);
  return true;
}

// Mark the file sparse (idempotent), then zero the range: NTFS then frees the clusters the
// range covers whole. A file system without sparse files refuses either (ERROR_INVALID_FUNCTION,
// ERROR_NOT_SUPPORTED: errno ENOSYS), and the caller stops dropping.
bool punch_hole(FileHandle f, uint64_t at, uint64_t n) noexcept {
  DWORD returned = 0;
  if (!DeviceIoControl(to_handle(f), FSCTL_SET_SPARSE, nullptr, 0, nullptr, 0, &returned, nullptr))
    return fail_with_last_error();
  FILE_ZERO_DATA_INFORMATION range{};
  range.FileOffset.QuadPart = static_cast<LONGLONG>(at);
  range.BeyondFinalZero.QuadPart = static_cast<LONGLONG>(at + n);
  if (!DeviceIoControl(to_handle(f), FSCTL_SET_ZERO_DATA, &range, sizeof(range), nullptr, 0, &returned, nullptr))
    return fail_with_last_error();
  return true;
}

FileHandle adopt_descriptor(int fd) noexcept {
  if (fd < 0) return kNoFile;
  const auto crt = _get_osfhandle(fd);
  HANDLE own = nullptr;
  if (crt == -1 || !DuplicateHandle(GetCurrentProcess(), reinterpret_cast<HANDLE>(crt), GetCurrentProcess(), &own, 0,
                                    FALSE, DUPLICATE_SAME_ACCESS)) {
    errno = EBADF;
    return kNoFile;
  }
  _close(fd);
  return reinterpret_cast<FileHandle>(own);
}

bool replace_file(const std::string& from, const std::string& to) noexcept {
  try {
    const std::wstring a = widen(from), b = widen(to);
    if (MoveFileExW(a.c_str(), b.c_str(), MOVEFILE_REPLACE_EXISTING)) return true;
    return fail_with_last_error();
  } catch (...) {
    errno = ENOMEM;
    return false;
  }
}

bool remove_file(const std::string& path) noexcept {
  try {
    return DeleteFileW(widen(path).c_str()) ? true : fail_with_last_error();
  } catch (...) {
    errno = ENOMEM;
    return false;
  }
}

uint64_t current_process_id() noexcept { return GetCurrentProcessId(); }

}  // namespace gcsnap::platform
