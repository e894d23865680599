#include <windows.h>

#include <cstring>

#include "platform/memory_map.hpp"
#include "platform/windows/win_error.hpp"

namespace gcsnap::platform {

// A read-only view sees later writes through other handles either way on Windows (one cache
// for the file), so SHARED changes nothing here. The section handle can close at once: the
// view keeps the mapping alive.
void* map_file(FileHandle f, size_t length, bool shared) noexcept {
  (void)shared;
  const uint64_t n = length;
  HANDLE section = CreateFileMappingW(to_handle(f), nullptr, PAGE_READONLY, static_cast<DWORD>(n >> 32),
                                      static_cast<DWORD>(n & 0xffffffffu), nullptr);
  if (!section) {
    fail_with_last_error();
    return nullptr;
  }
  void* p = MapViewOfFile(section, FILE_MAP_READ, 0, 0, length);
  const DWORD code = GetLastError();
  CloseHandle(section);
  if (!p) fail_with_last_error(code);
  return p;
}

void unmap_file(void* address, size_t length) noexcept {
  (void)length;
  UnmapViewOfFile(address);
}

void* allocate_pages(size_t length) noexcept {
  void* p = VirtualAlloc(nullptr, length, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  if (!p) fail_with_last_error();
  return p;
}

// No mremap on Windows: new pages and one copy.
void* grow_pages(void* address, size_t length, size_t want) noexcept {
  void* p = allocate_pages(want);
  if (!p) return nullptr;
  std::memcpy(p, address, length);
  free_pages(address, length);
  return p;
}

void free_pages(void* address, size_t length) noexcept {
  (void)length;
  VirtualFree(address, 0, MEM_RELEASE);
}

size_t page_size() noexcept {
  SYSTEM_INFO info{};
  GetSystemInfo(&info);
  return info.dwPageSize;
}

// Large pages on Windows need a privilege and a different allocation: no hint to give here.
void advise_huge_pages(void* address, size_t length) noexcept {
  (void)address;
  (void)length;
}

// Heap blocks are not the VirtualAlloc regions that DiscardVirtualMemory takes: nothing to do.
void discard_pages(void* address, size_t length) noexcept {
  (void)address;
  (void)length;
}

// The CRT's heap gives free pages back on its own terms: nothing to ask it.
void release_free_heap() noexcept {}

// VirtualUnlock on pages that are not locked takes them out of the working set (it then
// reports ERROR_NOT_LOCKED, which is expected).
void release_file_pages(void* address, size_t length) noexcept { (void)VirtualUnlock(address, length); }

// Windows commits on first touch; faulting ahead is left to that.
void prefault_for_write(void* address, size_t length) noexcept {
  (void)address;
  (void)length;
}

}  // namespace gcsnap::platform
