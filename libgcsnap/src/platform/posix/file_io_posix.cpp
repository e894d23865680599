#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "platform/file_io.hpp"

namespace gcsnap::platform {

FileHandle open_file(const std::string& path, OpenMode mode) noexcept {
  int flags = O_CLOEXEC;
  switch (mode) {
    case OpenMode::Read: flags |= O_RDONLY; break;
    case OpenMode::ReadWrite: flags |= O_RDWR; break;
    case OpenMode::CreateWrite: flags |= O_WRONLY | O_CREAT | O_TRUNC; break;
  }
  const int fd = ::open(path.c_str(), flags, 0644);
  return fd < 0 ? kNoFile : fd;
}

FileHandle duplicate_file(FileHandle f) noexcept {
  const int fd = ::fcntl(static_cast<int>(f), F_DUPFD_CLOEXEC, 0);
  return fd < 0 ? kNoFile : fd;
}

bool close_file(FileHandle f) noexcept { return ::close(static_cast<int>(f)) == 0; }

bool file_info(FileHandle f, FileInfo& info) noexcept {
  struct stat st{};
  if (::fstat(static_cast<int>(f), &st) != 0) return false;
  info.size = static_cast<uint64_t>(st.st_size);
  info.regular = S_ISREG(st.st_mode);
  info.mtime_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(st.st_mtim.tv_nsec);
  return true;
}

int64_t read_at(FileHandle f, void* out, size_t n, uint64_t at) noexcept {
  for (;;) {
    const ssize_t got = ::pread(static_cast<int>(f), out, n, static_cast<off_t>(at));
    if (got >= 0 || errno != EINTR) return got;
  }
}

int64_t write_at(FileHandle f, const void* p, size_t n, uint64_t at) noexcept {
  for (;;) {
    const ssize_t w = ::pwrite(static_cast<int>(f), p, n, static_cast<off_t>(at));
    if (w >= 0 || errno != EINTR) return w;
  }
}

int64_t write_some(FileHandle f, const void* p, size_t n) noexcept {
  for (;;) {
    const ssize_t w = ::write(static_cast<int>(f), p, n);
    if (w >= 0 || errno != EINTR) return w;
  }
}

bool seek_file(FileHandle f, uint64_t at) noexcept {
  return ::lseek(static_cast<int>(f), static_cast<off_t>(at), SEEK_SET) >= 0;
}

bool resize_file(FileHandle f, uint64_t size) noexcept {
  return ::ftruncate(static_cast<int>(f), static_cast<off_t>(size)) == 0;
}

bool sync_file(FileHandle f) noexcept { return ::fdatasync(static_cast<int>(f)) == 0; }

bool start_write_back(FileHandle f, uint64_t at, uint64_t n) noexcept {
  return ::sync_file_range(static_cast<int>(f), static_cast<off_t>(at), static_cast<off_t>(n), SYNC_FILE_RANGE_WRITE) == 0;
}

bool allocated_bytes(FileHandle f, uint64_t& out) noexcept {
  struct stat st{};
  if (::fstat(static_cast<int>(f), &st) != 0) return false;
  out = static_cast<uint64_t>(st.st_blocks) * 512u;
  return true;
}

bool punch_hole(FileHandle f, uint64_t at, uint64_t n) noexcept {
#if defined(__linux__)
  return ::fallocate(static_cast<int>(f), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(at),
                     static_cast<off_t>(n)) == 0;
#else
  (void)f, (void)at, (void)n;
  errno = EOPNOTSUPP;
  return false;
#endif
}

bool drop_written_pages(FileHandle f, uint64_t at, uint64_t n) noexcept {
  const int fd = static_cast<int>(f);
  if (::sync_file_range(fd, static_cast<off_t>(at), static_cast<off_t>(n),
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0)
    return false;
  (void)::posix_fadvise(fd, static_cast<off_t>(at), static_cast<off_t>(n), POSIX_FADV_DONTNEED);  // advice only
  return true;
}

FileHandle adopt_descriptor(int fd) noexcept { return fd < 0 ? kNoFile : fd; }

bool replace_file(const std::string& from, const std::string& to) noexcept {
  return std::rename(from.c_str(), to.c_str()) == 0;
}

bool remove_file(const std::string& path) noexcept { return ::unlink(path.c_str()) == 0; }

uint64_t current_process_id() noexcept { return static_cast<uint64_t>(::getpid()); }

}  // namespace gcsnap::platform
