#pragma once
/// The recording's data model: plain values shared by the writer, the reader and the analyses.
/// Enum values equal the CoreCLR profiling API's where one exists (format-spec.md §5).

#include <cstdint>
#include <string_view>

namespace gcsnap {

/// The longest type, module, method, field or static name a writer accepts, and what a reader
/// accepts by default (ReaderLimits::max_name_bytes, format-spec.md §8.1).
inline constexpr uint64_t kMaxNameBytes = 1u << 16;

/// COR_PRF_GC_ROOT_KIND.
enum class RootKind : uint8_t { Other = 0, Stack = 1, Finalizer = 2, Handle = 3 };
/// Return "stack", "finalizer", "handle" or "other".
std::string_view root_kind_name(RootKind kind) noexcept;

/// COR_PRF_GC_ROOT_FLAGS bits.
namespace root_flags {
inline constexpr uint8_t kPinning = 0x1;
inline constexpr uint8_t kWeakRef = 0x2;
inline constexpr uint8_t kInterior = 0x4;
inline constexpr uint8_t kRefCounted = 0x8;
inline constexpr uint8_t kAll = 0xF;
}  // namespace root_flags

/// COR_PRF_GC_GENERATION plus the two values gcsnap adds.
enum class Generation : uint8_t {
  Gen0 = 0,
  Gen1 = 1,
  Gen2 = 2,
  LargeObjectHeap = 3,
  PinnedObjectHeap = 4,
  NonGcHeap = 5,   ///< frozen objects (.NET 8+): string literals, RuntimeType objects
  Unknown = 0xFF,  ///< the address is in no recorded range
};
/// Return "gen0", "gen1", "gen2", "loh", "poh", "non-gc-heap" or "unknown".
std::string_view generation_name(Generation generation) noexcept;

/// COR_PRF_GC_REASON.
enum class GcReason : uint8_t { Other = 0, Induced = 1 };

/// Why the recorder took (or did not take) a heap walk at this GC.
enum class SnapshotTrigger : uint8_t {
  None = 0,       ///< no heap walk
  Policy = 1,     ///< the snapshot policy selected this GC
  OnDemand = 2,   ///< `gcsnap snapshot PID` or the signal
  Always = 3,     ///< every-GC policy
};

/// Return the bit of GcInfo::generations_collected for generation g (bit g set: g was collected).
inline constexpr uint8_t generation_bit(Generation g) { return static_cast<uint8_t>(1u << static_cast<unsigned>(g)); }

/// format-spec.md §3, required feature bit 0: the GC facts come from the runtime's event stream
/// (the shim's events source): roots and objects only at heap walks, background GCs possible.
inline constexpr uint64_t kFeatureEventsSource = 0x1;

/// One GC's header facts (format-spec.md §6.2).
struct GcInfo {
  uint64_t gc_number = 0;            ///< 1-based count of GCs the recorder saw
  uint8_t generations_collected = 0; ///< bitmask over Gen0..PinnedObjectHeap
  GcReason reason = GcReason::Other;
  bool compacted = false;            ///< MovedReferences were reported
  SnapshotTrigger trigger = SnapshotTrigger::None;
  uint64_t start_time_ns = 0;        ///< CLOCK_REALTIME at GarbageCollectionStarted
  uint64_t end_time_ns = 0;          ///< CLOCK_REALTIME at GarbageCollectionFinished
  uint32_t runtime_gc_count = 0;     ///< reserved for the runtime's own GC count (0 = unknown)

  /// A background GC (format-spec.md §5.2, events source): gen2 collected, gen0 not.
  bool background() const noexcept { return (generations_collected & 0x5) == 0x4; }
  /// Return the highest generation collected (0..2), as users name a GC.
  int condemned_generation() const noexcept {
    if (generations_collected & 0x4) return 2;
    if (generations_collected & 0x2) return 1;
    return 0;
  }
};

/// One range of a generation (COR_PRF_GC_GENERATION_RANGE). With regions there are many.
struct GenerationRange {
  Generation generation = Generation::Gen0;
  uint64_t start = 0;
  uint64_t length = 0;           ///< bytes in use
  uint64_t reserved_length = 0;  ///< bytes reserved
};

/// Why a snapshot policy skipped a GC's heap walk (format-spec.md §6.15, since 1.1).
namespace walk_skip_reason {
inline constexpr uint8_t kWalkTimeBudget = 1;  ///< heap walks would have exceeded their share of wall time
/// Since 1.3: the memory cgroup's headroom was smaller than the walk was estimated to need.
inline constexpr uint8_t kCgroupHeadroom = 2;
/// Since 1.3: the walk began and was abandoned when the shim's buffers reached their cap.
inline constexpr uint8_t kMemoryCap = 3;
/// A walk as large as the last one would not fit under the recording's size cap even with every
/// earlier walk dropped (format-spec.md §6.17, since 1.3)
inline constexpr uint8_t kSizeCap = 16;
}  // namespace walk_skip_reason

/// A heap walk the policy chose not to take at a GC that would otherwise have had one.
/// The three u64 figures depend on the reason (format-spec.md §6.15): for kWalkTimeBudget the
/// names below; for kCgroupHeadroom cgroup usage, cgroup limit, estimated need (bytes); for
/// kMemoryCap the cap, the bytes held when the walk was abandoned, the objects stored by then.
struct WalkSkip {
  uint8_t reason = walk_skip_reason::kWalkTimeBudget;
  uint32_t budget_per_mille = 0;     ///< the walk-time budget (20 = 2 % of wall time)
  uint64_t last_walk_ns = 0;         ///< duration of the last GC with a heap walk
  uint64_t since_last_walk_ns = 0;   ///< from the end of that GC (or the recording's start) to the start of this one
  uint64_t estimated_walk_ns = 0;    ///< what walking this GC was estimated to take (0: not given)
};

/// A kCgroupHeadroom skip: the cgroup's USAGE and LIMIT and what the walk was estimated to NEED.
inline WalkSkip cgroup_headroom_skip(uint64_t usage, uint64_t limit, uint64_t need) noexcept {
  return WalkSkip{walk_skip_reason::kCgroupHeadroom, 0, usage, limit, need};
}
/// A kMemoryCap skip: the CAP, the bytes HELD when the walk was abandoned, the OBJECTS stored.
inline WalkSkip memory_cap_skip(uint64_t cap, uint64_t held, uint64_t objects) noexcept {
  return WalkSkip{walk_skip_reason::kMemoryCap, 0, cap, held, objects};
}

/// Which groups of MemoryAccounting fields hold figures (format-spec.md §6.16, since 1.2).
namespace memory_present {
inline constexpr uint32_t kProcess = 0x01;       ///< rss, pss, swap and the split by mapping kind
inline constexpr uint32_t kGcMappings = 0x02;    ///< gc_committed_bytes, gc_resident_bytes
inline constexpr uint32_t kLiveObjects = 0x04;   ///< live_object_bytes (GCs with a heap walk)
inline constexpr uint32_t kCgroupUsage = 0x08;   ///< cgroup_usage_bytes
inline constexpr uint32_t kCgroupLimit = 0x10;   ///< cgroup_limit_bytes
/// With kProcess: pss_bytes and swap_bytes were not read (Windows has neither figure).
inline constexpr uint32_t kPssSwapUnread = 0x20;
inline constexpr uint32_t kPrivate = 0x40;       ///< private_bytes (Windows: the commit charge)
}  // namespace memory_present

/// What the process's memory was made of right after one GC (format-spec.md §6.16).
struct MemoryAccounting {
  uint32_t present = 0;  ///< memory_present bits: which groups below hold figures
  uint64_t sample_delay_ns = 0;
  uint64_t rss_bytes = 0, pss_bytes = 0, swap_bytes = 0;
  uint64_t gc_committed_bytes = 0, gc_resident_bytes = 0, gc_in_use_bytes = 0;
  uint64_t live_object_bytes = 0;
  uint64_t code_bytes = 0, mapped_file_bytes = 0, stack_bytes = 0, anonymous_bytes = 0;
  uint64_t recorder_bytes = 0;
  uint64_t cgroup_usage_bytes = 0, cgroup_limit_bytes = 0;
  uint64_t private_bytes = 0;  ///< since kPrivate: stored after the 1.2 fields (§6.16)


  bool has(uint32_t bits) const noexcept { return (present & bits) == bits; }
  /// Whether pss_bytes and swap_bytes hold figures (kProcess without kPssSwapUnread).
  bool has_pss_swap() const noexcept { return has(memory_present::kProcess) && !has(memory_present::kPssSwapUnread); }
  /// The recorder's own resident share: recorder_bytes, at most what is not the GC heap's
  /// (format-spec.md §6.16 "gcsnap"); 0 when the record has no such figure.
  uint64_t gcsnap_bytes() const noexcept {
    const uint64_t outside = rss_bytes > gc_resident_bytes ? rss_bytes - gc_resident_bytes : 0;
    return recorder_bytes < outside ? recorder_bytes : outside;
  }
  /// Resident bytes that are neither the GC heap's nor the recorder's (rss - gc_resident -
  /// gcsnap, 0 when negative).
  uint64_t native_and_other_bytes() const noexcept {
    const uint64_t outside = rss_bytes > gc_resident_bytes ? rss_bytes - gc_resident_bytes : 0;
    return outside - gcsnap_bytes();
  }
  /// anonymous_bytes without the recorder's part of it (0 when negative).
  uint64_t app_anonymous_bytes() const noexcept {
    return anonymous_bytes > recorder_bytes ? anonymous_bytes - recorder_bytes : 0;
  }
  /// Resident GC heap bytes not taken by live objects (0 when negative).
  uint64_t free_or_fragmented_bytes() const noexcept {
    return gc_resident_bytes > live_object_bytes ? gc_resident_bytes - live_object_bytes : 0;
  }
};

/// What the recorder had to drop at one GC, so that readers can say so.
struct DropCounts {
  uint64_t roots = 0;
  uint64_t ranges = 0;
  uint64_t objects = 0;
  uint64_t references = 0;
  uint32_t reasons = 0;  ///< DropReason bits
  bool any() const noexcept { return roots || ranges || objects || references || reasons; }
};

namespace drop_reason {
inline constexpr uint32_t kMemoryLimit = 0x1;   ///< the recorder's memory budget was hit
inline constexpr uint32_t kWriterBehind = 0x2;  ///< the writer thread could not keep up
inline constexpr uint32_t kHeapWalkAborted = 0x4;  ///< the heap walk was stopped early
inline constexpr uint32_t kTypeUnresolved = 0x8;   ///< some type names could not be resolved
}  // namespace drop_reason

/// A type the recording names. Ids are dense, 1-based; 0 means "unknown type".
struct TypeRecord {
  uint32_t id = 0;
  uint64_t class_id = 0;         ///< the runtime's ClassID (diagnostic only)
  std::string_view name;         ///< full name: namespaces, nesting with '+', generic args, arrays
  std::string_view module;       ///< module file name, empty if unknown
};

/// A method the recording names: stack roots carry FunctionIDs as root ids.
struct MethodRecord {
  uint64_t function_id = 0;
  std::string_view name;  ///< "Namespace.Type.Method"
};

/// The method a delegate object calls, at one heap walk (format-spec.md §6.22): FUNCTION_ID
/// names it through the methods (§6.8); 0 when the recorder could not resolve its code.
struct DelegateTarget {
  uint64_t address = 0;      ///< the delegate object
  uint64_t function_id = 0;
};

}  // namespace gcsnap
