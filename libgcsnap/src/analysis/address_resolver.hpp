#pragma once
// Bulk address -> node index resolution (private to the analyses).

#include <cstdint>
#include <span>

#include "gcsnap/status.hpp"

namespace gcsnap::detail {

/// Resolve every target to the index of the object that starts exactly there, or to
/// 0xFFFFFFFF when no object does. `addresses` must be strictly increasing and shorter than
/// 2^32. Returns the number of targets left unresolved. May throw std::bad_alloc.
uint64_t resolve_addresses(std::span<const uint64_t> addresses, std::span<const uint64_t> targets,
                           std::span<uint32_t> out);

}  // namespace gcsnap::detail
