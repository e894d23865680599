#pragma once
// The runtime's GCTriggered event (provider Microsoft-Windows-DotNETRuntime, keyword GC,
// id 35, payload: Reason u32, ClrInstanceID u16), read from the shim's own EventPipe session.
// .NET 8 hands the profiler COR_PRF_GC_OTHER for GCs the app induced with
// GC.Collect(..., compacting: true) or GCCollectionMode.Aggressive; this event carries the
// GC's own reason. The runtime writes it synchronously, on the thread that starts the GC,
// before GarbageCollectionStarted (checked on 8.0.34: GCStart, id 1, which also has the
// reason, comes after that callback, too late for the decision to walk). docs/shim.md,
// "Runtimes".

#include <cstdint>
#include <optional>
#include <span>

namespace gcsnap::shim {

inline constexpr uint32_t kGcTriggeredEventId = 35;
inline constexpr uint64_t kGcKeyword = 0x1;
inline constexpr uint32_t kLevelInformational = 4;

/// Return the Reason field of a GCTriggered payload, or nothing when it is too short.
std::optional<uint32_t> gc_triggered_reason(std::span<const uint8_t> payload) noexcept;

/// Return true for the GC reasons that runtimes from 9 on report to a profiler as induced
/// (the GC's is_induced: GC.Collect in any mode, and low-memory collections).
bool is_induced_gc_reason(uint32_t reason) noexcept;

}  // namespace gcsnap::shim
