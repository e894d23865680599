#pragma once
// Memory from the operating system: read-only maps of files, anonymous pages that grow without
// copying, and hints about pages (huge pages, faulting in ahead). One implementation per
// operating system (posix/memory_map_posix.cpp, windows/memory_map_windows.cpp). The hints may
// do nothing where the system has no such thing.

#include <cstddef>

#include "platform/file_io.hpp"

namespace gcsnap::platform {

/// Map LENGTH bytes of F from its start, read only. SHARED: later writes to the file through
/// another handle are seen (POSIX MAP_SHARED); otherwise a private map. nullptr on failure
/// (errno set). LENGTH must be above 0. The map outlives F's handle.
[[nodiscard]] void* map_file(FileHandle f, size_t length, bool shared) noexcept;
/// Unmap what map_file returned.
void unmap_file(void* address, size_t length) noexcept;

/// LENGTH bytes (a multiple of page_size()) of zeroed read-write pages; nullptr on failure.
[[nodiscard]] void* allocate_pages(size_t length) noexcept;
/// Grow pages from allocate_pages to WANT bytes, keeping their contents (moved when needed);
/// nullptr on failure, the old pages then untouched.
[[nodiscard]] void* grow_pages(void* address, size_t length, size_t want) noexcept;
/// Release pages from allocate_pages or grow_pages.
void free_pages(void* address, size_t length) noexcept;

/// The size of a page.
[[nodiscard]] size_t page_size() noexcept;
/// Ask for huge pages on the page-aligned range (a hint).
void advise_huge_pages(void* address, size_t length) noexcept;
/// Give back the memory of the page-aligned range of anonymous pages whose contents will never
/// be read again (a hint: POSIX MADV_DONTNEED; the pages read as zeros if touched again).
void discard_pages(void* address, size_t length) noexcept;
/// Give back the resident pages of the page-aligned range of a map_file map (a hint: they are
/// read from the file again if touched; POSIX MADV_DONTNEED, Windows VirtualUnlock).
void release_file_pages(void* address, size_t length) noexcept;
/// Give the pages of the C heap's freed memory back to the system (a hint: glibc's malloc_trim;
/// elsewhere nothing). Freed pages that are used again are faulted in afresh.
void release_free_heap() noexcept;
/// Fault the page-aligned range in for writing now (a hint).
void prefault_for_write(void* address, size_t length) noexcept;

}  // namespace gcsnap::platform
