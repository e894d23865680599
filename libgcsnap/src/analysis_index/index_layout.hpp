#pragma once
// The byte layout of an analysis index file (format-spec.md §12.2-12.3), shared by the writer
// and the reader so that they cannot disagree on where an array starts: the header, the
// directory of coded lengths and the coded arrays on disk, and the placement of the decoded
// arrays in the image a reader decodes them into.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "analysis_index/index_codec.hpp"

namespace gcsnap::index_layout {

/// A little-endian value at P, of any alignment (indexes are read on little-endian hosts only).
template <typename T>
T load(const void* p) noexcept {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

inline constexpr char kMagic[8] = {'G', 'C', 'S', 'N', 'A', 'P', 'I', 'X'};
inline constexpr uint16_t kMajor = 3;  // 3: arrays coded (zstd frames); 2: in place, one checksum per array
inline constexpr uint16_t kMinor = 3;  // 1: holder table (array 18); 2: nearest instances; 3: largest heads
inline constexpr size_t kHeaderSize = 384;
inline constexpr size_t kAlign = 64;
inline constexpr uint32_t kFlagWideOffsets = 0x1;
inline constexpr uint32_t kFlagDependent = 0x2;
inline constexpr uint32_t kFlagSlots = 0x4;
inline constexpr uint32_t kFlagHolders = 0x8;  // minor 1: array 18 present
inline constexpr uint32_t kFlagNearest = 0x10;  // minor 2: nearest instances in array 18
inline constexpr uint32_t kFlagHeads = 0x20;  // minor 3: largest heads in array 18
inline constexpr uint32_t kKnownFlags = 0x3F;
/// The flags a minor version knows (an index of minor 0 has no holder table, of minor 1 no
/// nearest instances, of minor 2 no largest heads).
inline constexpr uint32_t known_flags(uint16_t minor) {
  return minor == 0   ? kKnownFlags & ~(kFlagHolders | kFlagNearest | kFlagHeads)
         : minor == 1 ? kKnownFlags & ~(kFlagNearest | kFlagHeads)
         : minor == 2 ? kKnownFlags & ~kFlagHeads
                      : kKnownFlags;
}
// The records of the arrays that are not plain integers (§12.3), field offsets within one.
// Root: node u32, root index u32, root id u64, kind u8, flags u8, zeros to the end.
inline constexpr size_t kRootRecord = 24;
inline constexpr size_t kRootNode = 0, kRootIndex = 4, kRootId = 8, kRootKind = 16, kRootFlags = 17,
                        kRootZeroFrom = 18;
// Dependent edge: primary node u32, secondary node u32.
inline constexpr size_t kDependentRecord = 8;
inline constexpr size_t kDependentPrimary = 0, kDependentSecondary = 4;
// Type: type id u32, zero u32, then u64s: count, shallow bytes, retained bytes, unreachable
// count, and TypeStats::generation_bytes (7).
inline constexpr size_t kTypeRecord = 96;
inline constexpr size_t kTypeId = 0, kTypeZero = 4, kTypeCount = 8, kTypeShallow = 16, kTypeRetained = 24,
                        kTypeUnreachable = 32, kTypeGenerationBytes = 40;
// Type holder (array 18): type id u32, text length u32, holder address u64, flags u8, zeros
// to the end; the texts follow the records.
inline constexpr size_t kHolderRecord = 24;
inline constexpr size_t kHolderType = 0, kHolderTextLength = 4, kHolderAddress = 8, kHolderFlags = 16,
                        kHolderZeroFrom = 17;
inline constexpr uint8_t kHolderHasAddress = 0x1;
// Nearest instance (array 18 after the texts, minor 2): type id u32, node u32, hops u32.
inline constexpr size_t kNearestRecord = 12;
inline constexpr size_t kNearestType = 0, kNearestNode = 4, kNearestHops = 8;
// Largest head (array 18 after the nearest instances, minor 3), kHeadsKept of them: node u32,
// type id u32, retained u64, chain u64, immediate dominator u32, depth u32.
inline constexpr size_t kHeadRecord = 32;
inline constexpr size_t kHeadNode = 0, kHeadType = 4, kHeadRetained = 8, kHeadChain = 16, kHeadIdom = 24,
                        kHeadDepth = 28;
inline constexpr uint64_t kHeadsKept = 1024;
// Unresolved root: its position in the GC's root table, u32.
inline constexpr size_t kUnresolvedRecord = 4;
inline constexpr size_t kSampleBytes = 64 * 1024;

// Header field offsets (§12.2).
inline constexpr size_t kOffMajor = 8, kOffMinor = 10, kOffFlags = 12, kOffFileSize = 16, kOffMtime = 24,
                        kOffGcNumber = 32, kOffBlockOffset = 40, kOffBlockSize = 48, kOffSampleHash = 56,
                        kOffNodes = 64, kOffEdges = 72, kOffRoots = 80, kOffUnresolved = 88, kOffDependent = 96,
                        kOffPreorder = 104, kOffTypes = 112, kOffReachableBytes = 120, kOffUnreachableBytes = 128,
                        kOffStats = 136, kOffBlockHash = 192, kOffArray17Hash = 200, kOffDirectoryHash = 208,
                        kOffHolderHash = 216, kOffHolderCoded = 224, kOffHolderRows = 232, kOffHolderText = 236,
                        kOffNearestRows = 240, kOffNearestPerType = 244, kOffArrayHashes = 248, kOffHeaderHash = 376;

enum Array : size_t {
  kAddresses, kSizes, kTypeIds, kGenerations, kForwardOffsets, kForwardTargets, kReverseOffsets,
  kReverseSources, kSlots, kRoots, kUnresolved, kDependentEdges, kPreorder, kIdom, kRetained, kTypes,
  kPathParents, kHolders, kArrayCount
};

/// The directory after the header (format-spec.md §12.3): array k's coded length, u64, for
/// each array in order but the holder table, whose length is in the header (minor 1 added it
/// to a directory of fixed size); the coded arrays follow it, one after another, to the end of
/// the file.
inline constexpr size_t kDirectoryOffset = kHeaderSize;
inline constexpr size_t kDirectoryEntries = 17;
inline constexpr size_t kDirectorySize = 8 * kDirectoryEntries;
inline constexpr size_t kFirstArray = kDirectoryOffset + kDirectorySize;

/// Each array's element width for its coding (records are coded as bytes) and its transform
/// (format-spec.md §12.3 table); WIDE: offsets are u64.
inline detail::ArrayCoding coding(size_t which, bool wide) {
  using detail::Transform;
  switch (which) {
    case kAddresses: return {8, Transform::Delta};
    case kSizes: case kRetained: return {8, Transform::None};
    case kForwardOffsets: case kReverseOffsets: return {static_cast<uint8_t>(wide ? 8 : 4), Transform::Delta};
    case kTypeIds: case kForwardTargets: case kReverseSources: case kSlots: case kUnresolved: case kPreorder:
    case kIdom: return {4, Transform::None};
    case kPathParents: return {4, Transform::Self};
    default: return {1, Transform::None};  // generations and the records
  }
}

/// Where array WHICH's checksum is in the header: the first 16 in the table at 248, the 17th
/// (added by major 2's minor 2) and the 18th (minor 1) in what was reserved.
inline constexpr size_t hash_offset(size_t which) {
  return which < 16 ? kOffArrayHashes + 8 * which : which == kPathParents ? kOffArray17Hash : kOffHolderHash;
}

struct Counts {
  uint64_t nodes = 0, edges = 0, roots = 0, unresolved = 0, dependent = 0, preorder = 0, types = 0;
  uint64_t holder_rows = 0, holder_text = 0;  // array 18 (u32 in the header)
  uint64_t nearest_rows = 0, nearest_per_type = 0;  // array 18's nearest instances (u32, minor 2)
  uint32_t flags = 0;
};

struct Placement {
  std::array<uint64_t, kArrayCount> offset{};
  std::array<uint64_t, kArrayCount> bytes{};
  uint64_t file_size = 0;  ///< of the arrays decoded, placed as above (the reader's image)
  bool wide = false;       ///< offsets are u64
};

/// Where each array goes for these counts; nullopt when a size overflows 64 bits.
inline std::optional<Placement> place(const Counts& c) {
  constexpr uint64_t kCap = uint64_t{1} << 56;  // far above any real heap; keeps products in range
  if (c.nodes >= kCap || c.edges >= kCap || c.roots >= kCap || c.unresolved >= kCap || c.dependent >= kCap ||
      c.preorder >= kCap || c.types >= kCap || c.holder_rows > UINT32_MAX || c.holder_text > UINT32_MAX ||
      c.nearest_rows > UINT32_MAX || c.nearest_per_type > UINT32_MAX)
    return std::nullopt;
  const uint64_t off = (c.flags & kFlagWideOffsets) ? 8 : 4;
  const std::array<uint64_t, kArrayCount> bytes = {
      8 * c.nodes,      8 * c.nodes,     4 * c.nodes,        c.nodes,
      off * (c.nodes + 1), 4 * c.edges,  off * (c.nodes + 1), 4 * c.edges,
      (c.flags & kFlagSlots) ? 4 * c.edges : 0, kRootRecord * c.roots, kUnresolvedRecord * c.unresolved,
      kDependentRecord * c.dependent,
      4 * c.preorder,   4 * c.nodes,     8 * c.nodes,        kTypeRecord * c.types,
      4 * c.nodes,      kHolderRecord * c.holder_rows + c.holder_text + kNearestRecord * c.nearest_rows +
                            ((c.flags & kFlagHeads) ? kHeadRecord * kHeadsKept : 0)};
  Placement p;
  p.wide = (c.flags & kFlagWideOffsets) != 0;
  uint64_t at = kHeaderSize;
  for (size_t i = 0; i < kArrayCount; ++i) {
    at = (at + kAlign - 1) / kAlign * kAlign;
    p.offset[i] = at;
    p.bytes[i] = bytes[i];
    at += bytes[i];
  }
  p.file_size = at;
  return p;
}

}  // namespace gcsnap::index_layout
