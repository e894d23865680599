#pragma once
// Constants of the byte layout; each cites its format-spec.md section.

#include <cstdint>

#include "gcsnap/model.hpp"

namespace gcsnap::format {

/// §5, §6: the largest valid value of each enum stored as a byte; a reader rejects larger ones.
inline constexpr uint8_t kMaxGeneration = static_cast<uint8_t>(Generation::NonGcHeap);
inline constexpr uint8_t kMaxRootKind = static_cast<uint8_t>(RootKind::Handle);
inline constexpr uint8_t kMaxGcReason = static_cast<uint8_t>(GcReason::Induced);
inline constexpr uint8_t kMaxSnapshotTrigger = static_cast<uint8_t>(SnapshotTrigger::Always);
/// §6: GcInfo.generations_collected has one bit per generation, gen0 to the pinned-object heap.
inline constexpr uint8_t kGenerationsCollectedMask = 0x1F;

/// §3: first 8 bytes of every file, and last 8 bytes of a complete file (§7.2).
inline constexpr uint8_t kFileMagic[8] = {0x89, 'G', 'C', 'S', 'N', 'A', 'P', 0x0A};
inline constexpr uint8_t kTrailerMagic[8] = {0x0A, 'X', 'D', 'N', 'I', 'S', 'C', 'G'};
inline constexpr uint16_t kMajorVersion = 1;
inline constexpr uint16_t kMinorVersion = 5;  // 1.5: allocation samples (§6.18-§6.21), delegate targets (§6.22), values (§6.23-§6.26)
inline constexpr uint32_t kFileHeaderSize = 40;
/// §3: required-feature bits this reader implements.
inline constexpr uint64_t kKnownRequiredFeatures = kFeatureEventsSource;

/// §4: every section starts with this fixed header.
inline constexpr uint32_t kSectionHeaderSize = 40;
/// §7.2
inline constexpr uint32_t kTrailerSize = 32;

/// §4.1 section types.
enum class SectionType : uint16_t {
  BlockStart = 0x0001,
  GenerationBounds = 0x0010,
  Roots = 0x0011,
  SurvivingRanges = 0x0012,
  MovedRanges = 0x0013,
  Objects = 0x0014,
  Types = 0x0015,
  Methods = 0x0016,
  DependentHandles = 0x0017,  // since 1.1
  TypeLayouts = 0x0018,     ///< §6.12
  ReferenceSlots = 0x0019,  ///< §6.13
  StaticSlots = 0x001A,     ///< §6.14
  WalkSkipped = 0x001B,       // since 1.1
  MemoryAccounting = 0x001C,  ///< §6.16, since 1.2
  Dropped = 0x001D,           ///< §6.17, since 1.3: a walk's section whose payload was given back
  AllocSamples = 0x001E,      ///< §6.18, since 1.5
  AllocStacks = 0x001F,       ///< §6.19, since 1.5
  StackFunctions = 0x0020,    ///< §6.20, since 1.5
  SampledTypes = 0x0021,      ///< §6.21, since 1.5
  DelegateTargets = 0x0022,   ///< §6.22, since 1.5
  StringValues = 0x0024,      ///< §6.23, since 1.5: strings as length and keyed hash
  StringContents = 0x0025,    ///< §6.24, since 1.5: captured text, only when asked for
  CollectionValues = 0x0026,  ///< §6.25, since 1.5: count, capacity, limit
  ValueCapture = 0x0027,      ///< §6.26, since 1.5: how the walk's values were recorded
  BlockAbort = 0x00FE,
  BlockEnd = 0x00FF,
  Index = 0x0100,
};

/// §4 codec byte.
enum class Codec : uint8_t { Raw = 0, Zstd = 1 };

/// §5.1 column kinds (low 4 bits of a column's kind byte); bit 4 = values were divided by 8.
enum class ColumnKind : uint8_t { Bytes = 0, Varint = 1, Delta = 2, DeltaZigzag = 3, Edge = 4 };
inline constexpr uint8_t kColumnShift3 = 0x10;

/// §6.9: size of a GC summary record (block end payload and index entry).
inline constexpr uint32_t kGcSummarySize = 152;
/// §6.15: size of the walk-skipped payload.
inline constexpr uint32_t kWalkSkippedSize = 32;
/// §6.16: size of the memory-accounting payload this writer writes (and the least a reader accepts).
inline constexpr uint32_t kMemoryAccountingSize = 128;
/// §6.26: the value capture record's payload (a longer one is read by its first 16 bytes).
inline constexpr uint32_t kValueCaptureSize = 16;
inline constexpr uint32_t kMemoryAccountingPrivateSize = 136;  // with private_bytes (present bit 6)
/// §6.1: size of the block start payload.
inline constexpr uint32_t kBlockStartSize = 32;

}  // namespace gcsnap::format
