// The memory figures on Linux: /proc/self/smaps and the memory cgroup (memory_probe.cpp parses
// them; other POSIX systems have no such files and record none).
#include "memory_probe.hpp"

namespace gcsnap::shim {

void MemoryProbe::read(std::span<const GenerationRange> bounds, MemoryAccounting& out) noexcept {
  read_proc_files(bounds, out);
}

}  // namespace gcsnap::shim
