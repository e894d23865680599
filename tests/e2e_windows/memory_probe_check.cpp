// The shim's Windows memory probe (profiler-shim/windows/memory_probe_windows.cpp) on this
// process, without a runtime: before and after it takes 64 MiB of touched private memory and a
// fake GC range (32 MiB reserved, 16 MiB committed, 8 MiB touched), the figures must move by
// what was taken; then it times READS reads (printed, not asserted: docs/windows.md).
//   memory_probe_check [READS]
#include <windows.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "memory_probe.hpp"

using gcsnap::GenerationRange;
using gcsnap::MemoryAccounting;
namespace present = gcsnap::memory_present;

namespace {

constexpr uint64_t kMiB = 1 << 20;
int failures = 0;

void expect(bool ok, const char* what, uint64_t value) {
  std::printf("%s %s (%llu)\n", ok ? "ok" : "FAIL", what, static_cast<unsigned long long>(value));
  if (!ok) ++failures;
}

void touch(char* p, uint64_t bytes) {
  for (uint64_t off = 0; off < bytes; off += 4096) p[off] = 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int reads = argc > 1 ? std::atoi(argv[1]) : 20;
  gcsnap::shim::MemoryProbe probe;
  MemoryAccounting before;
  probe.read({}, before);
  const uint32_t expected = present::kProcess | present::kPssSwapUnread | present::kGcMappings | present::kPrivate;
  expect(before.present == expected, "present bits: process, pss and swap unread, GC mappings, private", before.present);

  auto* leak = static_cast<char*>(VirtualAlloc(nullptr, 64 * kMiB, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE));
  auto* gc = static_cast<char*>(VirtualAlloc(nullptr, 32 * kMiB, MEM_RESERVE, PAGE_NOACCESS));
  if (!leak || !gc || !VirtualAlloc(gc, 16 * kMiB, MEM_COMMIT, PAGE_READWRITE)) {
    std::printf("FAIL cannot allocate the test memory\n");
    return 1;
  }
  touch(leak, 64 * kMiB);
  touch(gc, 8 * kMiB);
  const GenerationRange bounds[] = {
      {gcsnap::Generation::Gen0, reinterpret_cast<uintptr_t>(gc), 12 * kMiB, 32 * kMiB}};
  MemoryAccounting after;
  probe.read(bounds, after);
  expect(after.anonymous_bytes >= before.anonymous_bytes + 63 * kMiB, "anonymous bytes grow by the 64 MiB taken",
         after.anonymous_bytes - before.anonymous_bytes);
  // 80 MiB committed, 72 MiB of it touched: Windows counts the commit, Wine the resident part.
  expect(after.private_bytes >= before.private_bytes + 63 * kMiB + 8 * kMiB, "private bytes grow by at least 72 MiB",
         after.private_bytes - before.private_bytes);
  expect(after.rss_bytes >= before.rss_bytes + 63 * kMiB + 8 * kMiB, "the working set grows by 72 MiB touched",
         after.rss_bytes - before.rss_bytes);
  expect(after.gc_committed_bytes == 16 * kMiB, "GC committed: the 16 MiB committed of the range", after.gc_committed_bytes);
  expect(after.gc_resident_bytes >= 8 * kMiB && after.gc_resident_bytes <= 9 * kMiB, "GC resident: the 8 MiB touched",
         after.gc_resident_bytes);
  expect(after.code_bytes > 0, "code bytes (images)", after.code_bytes);
  expect(after.stack_bytes > 0 && after.stack_bytes < 64 * kMiB, "stack bytes (this thread's stack)", after.stack_bytes);
  expect(after.pss_bytes == 0 && after.swap_bytes == 0, "pss and swap left 0 (unread)", after.pss_bytes + after.swap_bytes);

  std::vector<double> ms;
  for (int i = 0; i < reads; ++i) {
    MemoryAccounting m;
    const auto start = std::chrono::steady_clock::now();
    probe.read(bounds, m);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  if (!ms.empty()) {
    std::printf("cost of a read (%d reads, working set %.0f MiB, %.0f MiB committed private): best %.2f ms, "
                "median %.2f ms, worst %.2f ms\n",
                reads, double(after.rss_bytes) / double(kMiB), double(after.private_bytes) / double(kMiB), ms.front(),
                ms[ms.size() / 2], ms.back());
  }
  return failures ? 1 : 0;
}
