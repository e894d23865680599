#include <sys/mman.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "platform/memory_map.hpp"

namespace gcsnap::platform {

void* map_file(FileHandle f, size_t length, bool shared) noexcept {
  void* p = ::mmap(nullptr, length, PROT_READ, shared ? MAP_SHARED : MAP_PRIVATE, static_cast<int>(f), 0);
  return p == MAP_FAILED ? nullptr : p;
}

void unmap_file(void* address, size_t length) noexcept { ::munmap(address, length); }

void* allocate_pages(size_t length) noexcept {
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// mremap moves the pages instead of copying the bytes.
void* grow_pages(void* address, size_t length, size_t want) noexcept {
  void* p = ::mremap(address, length, want, MREMAP_MAYMOVE);
  return p == MAP_FAILED ? nullptr : p;
}

void free_pages(void* address, size_t length) noexcept { ::munmap(address, length); }

size_t page_size() noexcept { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

void advise_huge_pages(void* address, size_t length) noexcept {
#ifdef MADV_HUGEPAGE
  (void)::madvise(address, length, MADV_HUGEPAGE);
#else
  (void)address;
  (void)length;
#endif
}

void discard_pages(void* address, size_t length) noexcept { (void)::madvise(address, length, MADV_DONTNEED); }

// On a read-only file map MADV_DONTNEED drops the pages from the process; the page cache keeps them.
void release_file_pages(void* address, size_t length) noexcept { (void)::madvise(address, length, MADV_DONTNEED); }

void release_free_heap() noexcept {
#if defined(__GLIBC__)
  (void)::malloc_trim(0);
#endif
}

// MADV_POPULATE_WRITE (Linux 5.14): older kernels refuse it and the pages fault in on first use.
void prefault_for_write(void* address, size_t length) noexcept {
  constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE, absent from older headers
  (void)::madvise(address, length, kPopulateWrite);
}

}  // namespace gcsnap::platform
