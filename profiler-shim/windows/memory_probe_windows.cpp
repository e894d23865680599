// The memory figures on Windows (format-spec.md §6.16): GetProcessMemoryInfo for the working set
// (rss_bytes) and private bytes (the commit charge, which is also the pagefile usage), and one
// VirtualQuery walk of the address space whose committed regions QueryWorkingSetEx splits into
// resident pages: the GC's ranges, images (code), mapped views (mapped files), thread stacks
// (private reservations with a guard page) and the rest of the private memory (anonymous).
// Windows has no proportional set size and no swap figure of a process: pss_bytes and swap_bytes
// are left unread (memory_present::kPssSwapUnread). No memory cgroup either.
#include "memory_probe.hpp"

#include <windows.h>
#include <psapi.h>

#include <algorithm>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace gcsnap::shim {
namespace {

constexpr size_t kBatchPages = 4096;  // QueryWorkingSetEx entries per call (64 KiB)

using Extents = std::vector<std::pair<uint64_t, uint64_t>>;

// The GC's reserved extents, sorted and merged (as memory_probe.cpp does for smaps).
Extents gc_extents(std::span<const GenerationRange> bounds) {
  Extents out;
  for (const GenerationRange& g : bounds) {
    const uint64_t len = std::max(g.length, g.reserved_length);
    if (len == 0 || g.start > UINT64_MAX - len) continue;
    out.emplace_back(g.start, g.start + len);
  }
  std::sort(out.begin(), out.end());
  Extents merged;
  for (const auto& e : out) {
    if (!merged.empty() && e.first <= merged.back().second) merged.back().second = std::max(merged.back().second, e.second);
    else merged.push_back(e);
  }
  return merged;
}

// Counts the resident pages of committed ranges through QueryWorkingSetEx, a batch at a time.
class ResidentCounter {
 public:
  explicit ResidentCounter(uint64_t page) : page_(page) {}
  bool ok() const noexcept { return pages_ != nullptr && !failed_; }

  bool start() noexcept {
    pages_.reset(new (std::nothrow) PSAPI_WORKING_SET_EX_INFORMATION[kBatchPages]);
    return pages_ != nullptr;
  }

  // Resident bytes of [lo, hi) (page-aligned).
  uint64_t resident(uint64_t lo, uint64_t hi) noexcept {
    uint64_t total = 0;
    for (uint64_t at = lo; at < hi && !failed_;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>((hi - at) / page_, kBatchPages));
      if (n == 0) break;
      for (size_t k = 0; k < n; ++k) {
        pages_[k].VirtualAddress = reinterpret_cast<void*>(static_cast<uintptr_t>(at + k * page_));
        pages_[k].VirtualAttributes.Flags = 0;
      }
      if (!QueryWorkingSetEx(GetCurrentProcess(), pages_.get(), static_cast<DWORD>(n * sizeof(pages_[0])))) {
        failed_ = true;
        break;
      }
      for (size_t k = 0; k < n; ++k) total += pages_[k].VirtualAttributes.Valid ? page_ : 0;
      at += n * page_;
    }
    return total;
  }

 private:
  uint64_t page_;
  std::unique_ptr<PSAPI_WORKING_SET_EX_INFORMATION[]> pages_;
  bool failed_ = false;
};

// One committed region's resident bytes, inside the GC's extents to the GC heap, outside by kind.
void account_region(const MEMORY_BASIC_INFORMATION& r, bool is_stack, const Extents& extents, ResidentCounter& counter,
                    MemoryAccounting& out) {
  const uint64_t lo = reinterpret_cast<uintptr_t>(r.BaseAddress), hi = lo + r.RegionSize;
  uint64_t* kind = r.Type == MEM_IMAGE    ? &out.code_bytes
                   : r.Type == MEM_MAPPED ? &out.mapped_file_bytes
                   : is_stack             ? &out.stack_bytes
                                          : &out.anonymous_bytes;
  uint64_t at = lo;
  auto it = std::upper_bound(extents.begin(), extents.end(), std::make_pair(lo, UINT64_MAX));
  if (it != extents.begin()) --it;
  for (; it != extents.end() && it->first < hi && at < hi; ++it) {
    const uint64_t in_lo = std::max(at, it->first), in_hi = std::min(hi, it->second);
    if (in_hi <= in_lo) continue;
    if (in_lo > at) *kind += counter.resident(at, in_lo);
    out.gc_committed_bytes += in_hi - in_lo;
    out.gc_resident_bytes += counter.resident(in_lo, in_hi);
    at = in_hi;
  }
  if (at < hi) *kind += counter.resident(at, hi);
}

}  // namespace

void MemoryProbe::read(std::span<const GenerationRange> bounds, MemoryAccounting& out) noexcept {
  try {
    PROCESS_MEMORY_COUNTERS_EX counters{};
    counters.cb = sizeof counters;
    if (GetProcessMemoryInfo(GetCurrentProcess(), reinterpret_cast<PROCESS_MEMORY_COUNTERS*>(&counters),
                             sizeof counters)) {
      // Windows gives both the same value (the commit charge); Wine fills only PagefileUsage.
      out.private_bytes = counters.PrivateUsage ? counters.PrivateUsage : counters.PagefileUsage;
      out.present |= memory_present::kPrivate;
    } else {
      return;
    }
    SYSTEM_INFO sys{};
    GetSystemInfo(&sys);
    const Extents extents = gc_extents(bounds);
    ResidentCounter counter(sys.dwPageSize);
    if (!counter.start()) return;
    MemoryAccounting split;
    // Thread stacks: the committed part of a private reservation that also holds a guard page
    // (PAGE_GUARD, just below the committed stack). Regions come in address order, so the guard
    // is met first and its reservation remembered.
    const void* guarded_reservation = nullptr;
    auto* at = static_cast<const char*>(sys.lpMinimumApplicationAddress);
    const auto* end = static_cast<const char*>(sys.lpMaximumApplicationAddress);
    MEMORY_BASIC_INFORMATION r{};
    while (at < end && VirtualQuery(at, &r, sizeof r) == sizeof r && r.RegionSize) {
      if (r.State == MEM_COMMIT) {
        if (r.Protect & PAGE_GUARD) guarded_reservation = r.AllocationBase;
        const bool is_stack = r.Type == MEM_PRIVATE && r.AllocationBase == guarded_reservation;
        if (!(r.Protect & (PAGE_GUARD | PAGE_NOACCESS))) account_region(r, is_stack, extents, counter, split);
      }
      at = static_cast<const char*>(r.BaseAddress) + r.RegionSize;
    }
    if (!counter.ok()) return;
    out.rss_bytes = counters.WorkingSetSize;
    out.code_bytes = split.code_bytes;
    out.mapped_file_bytes = split.mapped_file_bytes;
    out.stack_bytes = split.stack_bytes;
    out.anonymous_bytes = split.anonymous_bytes;
    out.gc_committed_bytes = split.gc_committed_bytes;
    out.gc_resident_bytes = split.gc_resident_bytes;
    out.present |= memory_present::kProcess | memory_present::kPssSwapUnread | memory_present::kGcMappings;
  } catch (...) {
    // Out of memory for the extents: this GC has no process figures.
  }
}

}  // namespace gcsnap::shim
