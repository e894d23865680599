#pragma once
// What the process's memory is made of (format-spec.md §6.16), read by the writer thread after
// a GC, never on the GC's pause: on Linux the per-mapping view of /proc/self/smaps split into the
// GC's ranges, code, mapped files, stacks and anonymous memory, and the memory cgroup's usage and
// limit; on Windows the same split from the committed regions' resident pages. The parsers take text and a root directory, so tests drive them without a runtime.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "gcsnap/model.hpp"

namespace gcsnap::shim {

/// Add the figures of SMAPS (the text of /proc/PID/smaps) to OUT: rss, pss, swap, the GC
/// heap's committed and resident bytes inside BOUNDS' reserved extents, and the rest by mapping
/// kind. Sets memory_present::kProcess and kGcMappings. Malformed lines are skipped.
void account_mappings(std::string_view smaps, std::span<const GenerationRange> bounds, MemoryAccounting& out);

/// Read the memory cgroup of the process whose /proc/PID/cgroup text is PROC_CGROUP, under
/// ROOT (normally "/": files are ROOT + "sys/fs/cgroup/..."), cgroup v2 or v1. Sets
/// kCgroupUsage and kCgroupLimit (the smallest limit of the group and its parents) when found.
void account_cgroup(std::string_view proc_cgroup, const std::string& root, MemoryAccounting& out);

/// The directory the cgroup files are read under: "/", or GCSNAP_TEST_CGROUP_ROOT (tests).
const std::string& cgroup_root();

/// Read this process's memory cgroup usage and limit now (two small files; the OOM guard
/// before a heap walk). False when there is no cgroup with a limit, or nothing could be read.
bool read_cgroup_limit(uint64_t& usage, uint64_t& limit) noexcept;

/// Reads the figures of this process, reusing one text buffer between calls. Not thread-safe:
/// one reader per writer thread.
class MemoryProbe {
 public:
  /// Fill OUT with this process's figures now (the groups that could be read). Each system
  /// has its own: posix/memory_probe_posix.cpp reads /proc; windows/memory_probe_windows.cpp
  /// asks GetProcessMemoryInfo, VirtualQuery and QueryWorkingSetEx.
  void read(std::span<const GenerationRange> bounds, MemoryAccounting& out) noexcept;

 private:
  /// Linux: /proc/self/smaps and the memory cgroup.
  void read_proc_files(std::span<const GenerationRange> bounds, MemoryAccounting& out) noexcept;

  std::string smaps_, cgroup_;
};

}  // namespace gcsnap::shim
