#include "gc_trigger_event.hpp"

namespace gcsnap::shim {

std::optional<uint32_t> gc_triggered_reason(std::span<const uint8_t> payload) noexcept {
  if (payload.size() < 4) return std::nullopt;
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) value |= static_cast<uint32_t>(payload[i]) << (8 * i);
  return value;
}

bool is_induced_gc_reason(uint32_t reason) noexcept {
  // The GC's gc_reason values: induced 1, lowmemory 2, induced_noforce 7, lowmemory_blocking 9,
  // induced_compacting 10, lowmemory_host 11, lowmemory_host_blocking 13, induced_aggressive 17.
  switch (reason) {
    case 1: case 2: case 7: case 9: case 10: case 11: case 13: case 17: return true;
    default: return false;
  }
}

}  // namespace gcsnap::shim
