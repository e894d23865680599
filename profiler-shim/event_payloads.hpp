#pragma once
// The payloads of the runtime's GC events (provider Microsoft-Windows-DotNETRuntime) that the
// events source reads (docs/shim.md "Sources"; layouts: eventpipe-mode-facts.md). Parsed with
// bounds-checked little-endian loads, never struct casts: a payload comes from the runtime, but
// a short or inconsistent one must give "unreadable", not a read past its end.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gcsnap::shim {

/// Event ids of the provider that the events source reads.
namespace gc_event {
inline constexpr uint32_t kStart = 1;             ///< GCStart v2
inline constexpr uint32_t kEnd = 2;               ///< GCEnd v1
inline constexpr uint32_t kRootEdge = 16;         ///< GCBulkRootEdge
inline constexpr uint32_t kDependentHandle = 17;  ///< GCBulkRootConditionalWeakTableElementEdge
inline constexpr uint32_t kNode = 18;             ///< GCBulkNode
inline constexpr uint32_t kEdge = 19;             ///< GCBulkEdge
inline constexpr uint32_t kSurviving = 21;        ///< GCBulkSurvivingObjectRanges
inline constexpr uint32_t kMoved = 22;            ///< GCBulkMovedObjectRanges
}  // namespace gc_event

/// GCStart's Type field.
enum class GcKind : uint8_t { Blocking = 0, Background = 1, Foreground = 2 };

struct GcStartEvent {
  uint32_t count = 0;   ///< the runtime's GC index
  uint32_t depth = 0;   ///< the condemned generation (0..2)
  uint32_t reason = 0;  ///< the runtime's reason (1 induced, 7 induced not forced, ...)
  GcKind kind = GcKind::Blocking;
};

struct GcEndEvent {
  uint32_t count = 0;
  uint32_t depth = 0;
};

/// Parallel columns, the shape the Recorder takes.
struct SurvivingBatch {
  std::vector<uint64_t> starts, lengths;
};
struct MovedBatch {
  std::vector<uint64_t> old_starts, new_starts, lengths;
};
struct NodeBatch {
  std::vector<uint64_t> addresses, sizes, types, edge_counts;
};
struct RootBatch {
  std::vector<uint64_t> objects, root_ids;
  std::vector<uint32_t> kinds, flags;  ///< the event's kind and flags (not yet the profiler's)
};
struct DependentBatch {
  std::vector<uint64_t> keys, values;
};

/// Each parser returns nothing when PAYLOAD is too short for its fixed part or for the count it
/// declares, or declares an element size other than the layout's.
std::optional<GcStartEvent> parse_gc_start(std::span<const uint8_t> payload) noexcept;
std::optional<GcEndEvent> parse_gc_end(std::span<const uint8_t> payload) noexcept;
/// Append the batch's rows to OUT (cleared first). False: unreadable, OUT empty.
bool parse_surviving(std::span<const uint8_t> payload, SurvivingBatch& out);
bool parse_moved(std::span<const uint8_t> payload, MovedBatch& out);
bool parse_nodes(std::span<const uint8_t> payload, NodeBatch& out);
/// GCBulkEdge: the targets only (ReferencingFieldID is always 0).
bool parse_edges(std::span<const uint8_t> payload, std::vector<uint64_t>& out);
bool parse_roots(std::span<const uint8_t> payload, RootBatch& out);
bool parse_dependent_handles(std::span<const uint8_t> payload, DependentBatch& out);

/// The profiling API's root kind (COR_PRF_GC_ROOT_KIND) for an event's GCRootKind
/// (0 stack, 1 finalizer, 2 handle, others: other). The flags have the same bits in both.
uint32_t profiler_root_kind(uint32_t event_kind) noexcept;

}  // namespace gcsnap::shim
