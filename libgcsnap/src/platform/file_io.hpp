#pragma once
// Files as the format and the analysis index use them: open, size, positioned and sequential
// reads and writes, truncate, sync, replace by rename. One implementation per operating system
// (posix/file_io_posix.cpp, windows/file_io_windows.cpp); the callers never see which.
// A function that fails returns false (or -1) and leaves a POSIX errno value in errno, which
// the callers put into Error::sys_errno; the Windows side maps its error codes onto errno.

#include <cstddef>
#include <cstdint>
#include <string>

namespace gcsnap::platform {

/// An open file: a descriptor on POSIX, a HANDLE on Windows. kNoFile when none.
using FileHandle = intptr_t;
inline constexpr FileHandle kNoFile = -1;

enum class OpenMode {
  Read,         ///< read only; the file must exist
  ReadWrite,    ///< read and write; the file must exist
  CreateWrite,  ///< write only; created, or truncated when it exists
};

/// Open PATH (UTF-8). Others may read, write, rename and delete it meanwhile, as on POSIX.
[[nodiscard]] FileHandle open_file(const std::string& path, OpenMode mode) noexcept;
/// A second handle to F's open file (same position); kNoFile on failure.
[[nodiscard]] FileHandle duplicate_file(FileHandle f) noexcept;
/// Close F; false when the last writes could not be flushed.
bool close_file(FileHandle f) noexcept;
struct FileInfo {
  uint64_t size = 0;     ///< in bytes
  bool regular = false;  ///< a plain file on a disk (not a directory, pipe or device)
  uint64_t mtime_ns = 0; ///< last modification, nanoseconds since 1970-01-01 UTC
};
/// What F is and its size.
[[nodiscard]] bool file_info(FileHandle f, FileInfo& info) noexcept;
/// Read up to N bytes at offset AT; the count read (0 at the end), or -1. Neither this nor
/// write_at moves the file position (pread/pwrite; Windows puts its file pointer back).
[[nodiscard]] int64_t read_at(FileHandle f, void* out, size_t n, uint64_t at) noexcept;
/// Read exactly N bytes at offset AT, looping over short reads; false on an error or at the end.
[[nodiscard]] inline bool read_all_at(FileHandle f, void* out, size_t n, uint64_t at) noexcept {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    const int64_t got = read_at(f, p, n, at);
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
    at += static_cast<uint64_t>(got);
  }
  return true;
}
/// Write up to N bytes at offset AT; the count written, or -1.
[[nodiscard]] int64_t write_at(FileHandle f, const void* p, size_t n, uint64_t at) noexcept;
/// Write up to N bytes at the file position and advance it; the count written, or -1.
[[nodiscard]] int64_t write_some(FileHandle f, const void* p, size_t n) noexcept;
/// Set the file position to AT.
[[nodiscard]] bool seek_file(FileHandle f, uint64_t at) noexcept;
/// Cut or extend F to SIZE bytes.
[[nodiscard]] bool resize_file(FileHandle f, uint64_t size) noexcept;
/// Flush F's data to the disk (fdatasync). errno EINVAL when F cannot be synced (a pipe).
[[nodiscard]] bool sync_file(FileHandle f) noexcept;
/// Start writing [AT, AT + N) of F back to the disk without waiting. errno ESPIPE, EINVAL or
/// ENOSYS when F or the system cannot (then callers stop asking).
[[nodiscard]] bool start_write_back(FileHandle f, uint64_t at, uint64_t n) noexcept;
/// Wait until [AT, AT + N) of F is on the disk, then drop those pages from the cache (a hint).
/// Fails as start_write_back does.
[[nodiscard]] bool drop_written_pages(FileHandle f, uint64_t at, uint64_t n) noexcept;
/// Bytes of the disk F occupies (POSIX: st_blocks × 512; Windows: the size GetCompressedFileSize
/// gives, else the allocation size), which a punched hole no longer counts.
[[nodiscard]] bool allocated_bytes(FileHandle f, uint64_t& out) noexcept;
/// Give back the disk blocks of [AT, AT + N) of F, keeping its size; the range then reads as
/// zeros (Linux: fallocate PUNCH_HOLE; Windows: F made sparse, FSCTL_SET_ZERO_DATA, which frees
/// the clusters the range covers whole). errno EOPNOTSUPP (or ENOSYS) when the file system or
/// the system cannot.
[[nodiscard]] bool punch_hole(FileHandle f, uint64_t at, uint64_t n) noexcept;
/// Take over FD, an open file descriptor of the C runtime (POSIX: the descriptor itself;
/// Windows: its handle, and FD is closed). kNoFile when FD is not open.
[[nodiscard]] FileHandle adopt_descriptor(int fd) noexcept;
/// Rename FROM to TO, replacing TO when it exists.
[[nodiscard]] bool replace_file(const std::string& from, const std::string& to) noexcept;
/// Delete PATH; false when it could not be deleted.
bool remove_file(const std::string& path) noexcept;
/// This process's id (for scratch file names).
[[nodiscard]] uint64_t current_process_id() noexcept;

}  // namespace gcsnap::platform
