// Linked into gcsnap and its profiler library only with GCSNAP_PORTABLE (GcsnapPortable.cmake).
// The static libstdc++ and libgcc of the build machine call two functions that only newer C
// libraries have: arc4random (glibc 2.36; std::random_device) and _dl_find_object (glibc 2.35;
// the exception unwinder). Defined here, the linker binds those calls to these definitions,
// and the binaries run on glibc 2.34 (docs/install.md "Requirements").
#include <dlfcn.h>
#include <link.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace {

struct FindRequest {
  uintptr_t pc;
  dl_find_object* result;
  bool found;
};

int find_object(dl_phdr_info* info, size_t, void* data) {
  auto* request = static_cast<FindRequest*>(data);
  uintptr_t start = UINTPTR_MAX, end = 0, eh_frame = 0;
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t from = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD) {
      if (from < start) start = from;
      if (from + ph.p_memsz > end) end = from + ph.p_memsz;
      if (request->pc >= from && request->pc < from + ph.p_memsz) contains = true;
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      eh_frame = from;
    }
  }
  if (!contains) return 0;
  request->result->dlfo_flags = 0;
  request->result->dlfo_map_start = reinterpret_cast<void*>(start);
  request->result->dlfo_map_end = reinterpret_cast<void*>(end);
  request->result->dlfo_link_map = nullptr;
  request->result->dlfo_eh_frame = reinterpret_cast<void*>(eh_frame);
  request->found = true;
  return 1;
}

}  // namespace

extern "C" {

// glibc's contract: 0 and *result filled when pc lies in a loaded object, else -1.
__attribute__((visibility("hidden"))) int _dl_find_object(void* pc, dl_find_object* result) noexcept {
  FindRequest request{reinterpret_cast<uintptr_t>(pc), result, false};
  dl_iterate_phdr(find_object, &request);
  return request.found ? 0 : -1;
}

// arc4random never fails: the kernel's random source (getrandom, Linux 3.17, glibc 2.25).
__attribute__((visibility("hidden"))) uint32_t arc4random() noexcept {
  uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  size_t have = 0;
  while (have < sizeof(value)) {
    ssize_t n = getrandom(bytes + have, sizeof(value) - have, 0);
    if (n > 0) {
      have += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      std::abort();
    }
  }
  return value;
}

}  // extern "C"
