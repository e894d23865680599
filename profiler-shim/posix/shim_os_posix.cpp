#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "shim_os.hpp"

namespace gcsnap::shim::os {

long current_pid() noexcept { return static_cast<long>(::getpid()); }

void write_stderr(std::string_view text) noexcept {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t w = ::write(STDERR_FILENO, p, left);
    if (w <= 0) return;
    p += w;
    left -= static_cast<size_t>(w);
  }
}

void name_this_thread(const char* name) noexcept { pthread_setname_np(pthread_self(), name); }

ThreadClocks read_thread_clocks() noexcept {
  ThreadClocks c;
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  c.wall_ns = uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  c.cpu_ns = uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
  rusage usage{};
  if (::getrusage(RUSAGE_THREAD, &usage) == 0) c.minor_faults = uint64_t(usage.ru_minflt);
  return c;
}

uint64_t resident_bytes() noexcept {
  // /proc/self/statm: size, then resident, in pages (Linux; elsewhere the file is missing).
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const bool read = std::fscanf(f, "%llu %llu", &size, &resident) == 2;
  std::fclose(f);
  const long page = ::sysconf(_SC_PAGESIZE);
  return read && page > 0 ? resident * static_cast<uint64_t>(page) : 0;
}

// Huge pages for the chunks: on the VMs measured (docs/performance.md) a page fault costs
// 15-40 us whoever takes it (the pool's thread or the GC thread), so a 6 MiB chunk in 4 KiB
// pages cost 1,536 faults; in 2 MiB pages it costs 3. THP is "madvise" on Debian: ask for it.
void* map_memory(size_t bytes) noexcept {
  constexpr size_t kHuge = size_t{2} << 20;
  if (bytes < kHuge) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
  // Over-map by one huge page, keep the 2 MiB aligned part: the kernel only uses huge pages
  // for aligned 2 MiB ranges of the mapping.
  void* raw = ::mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHuge - 1) & ~uintptr_t{kHuge - 1};
  if (aligned > start) ::munmap(raw, aligned - start);
  const uintptr_t end = start + bytes + kHuge;
  if (end > aligned + bytes) ::munmap(reinterpret_cast<void*>(aligned + bytes), end - (aligned + bytes));
#ifdef MADV_HUGEPAGE
  (void)::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);  // a hint: 4 KiB pages if refused
#endif
  return reinterpret_cast<void*>(aligned);
}

void unmap_memory(void* p, size_t bytes) noexcept { ::munmap(p, bytes); }

void populate_memory(void* p, size_t bytes) noexcept {
#ifdef MADV_POPULATE_WRITE
  (void)::madvise(p, bytes, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

CommandLine this_command_line() {
  CommandLine line;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    line.argv.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  char buffer[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  line.exe = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
  line.cwd = ::getcwd(buffer, sizeof(buffer)) ? std::string(buffer) : std::string(".");
  return line;
}

bool is_regular_file(const std::string& path) noexcept {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

FileHandle create_new_file(const std::string& path, bool& existed, std::string& why) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  existed = fd < 0 && errno == EEXIST;
  if (fd < 0) why = std::strerror(errno);
  return fd < 0 ? kNoFile : FileHandle{fd};
}

void close_file(FileHandle f) noexcept {
  if (f != kNoFile) ::close(static_cast<int>(f));
}

void remove_file(const std::string& path) noexcept { ::unlink(path.c_str()); }

bool write_whole_file(const std::string& path, std::string_view text) noexcept {
  try {
    std::string temporary = path + ".tmp";
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    if (done == text.size() && ::rename(temporary.c_str(), path.c_str()) == 0) return true;
    ::unlink(temporary.c_str());
    return false;
  } catch (...) {
    return false;
  }
}

// ESRCH only: EPERM means it lives (a root CLI watched from a process of another user).
bool process_exists(long pid) noexcept { return !(::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH); }

void keep_module_loaded() noexcept {}

}  // namespace gcsnap::shim::os
