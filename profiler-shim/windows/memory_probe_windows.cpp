// The memory figures on Windows: none of the process's own yet, so a recording made there holds
// only what the recorder knows itself (the GC heap in use, live object bytes) and `info` shows
// no resident or native figures. They would come from GetProcessMemoryInfo (working set, private
// bytes) and VirtualQuery over the GC's reserved ranges.
#include "memory_probe.hpp"

namespace gcsnap::shim {

void MemoryProbe::read(std::span<const GenerationRange>, MemoryAccounting&) noexcept {}

}  // namespace gcsnap::shim
