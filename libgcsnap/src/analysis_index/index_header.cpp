// The analysis index's header and directory checks (index_header.hpp), in the order of
// format-spec.md §12.4 items 1-3, so that every reader reports the same first failure.

#include "analysis_index/index_header.hpp"

#include <bit>
#include <cstring>

#include "format/xxh3_wide.hpp"

#include "gcsnap/heap_graph.hpp"

namespace gcsnap::detail {

namespace L = index_layout;

namespace {

Error damaged(ErrorCode code, const char* detail) { return make_error(code, detail); }

}  // namespace

IndexIdentity identity_in_header(const std::byte* h) noexcept {
  IndexIdentity id;
  id.file_size = L::load<uint64_t>(h + L::kOffFileSize);
  id.mtime_ns = L::load<uint64_t>(h + L::kOffMtime);
  id.gc_number = L::load<uint64_t>(h + L::kOffGcNumber);
  id.block_offset = L::load<uint64_t>(h + L::kOffBlockOffset);
  id.block_size = L::load<uint64_t>(h + L::kOffBlockSize);
  id.block_sample_hash = L::load<uint64_t>(h + L::kOffSampleHash);
  return id;
}

Result<IndexHead> check_index_head(std::span<const std::byte> head, uint64_t file_size, const IndexIdentity* expected) {
  if constexpr (std::endian::native != std::endian::little)
    return make_error(ErrorCode::UnsupportedVersion, "analysis indexes are read on little-endian hosts only");
  const std::byte* h = head.data();
  if (file_size < L::kHeaderSize || head.size() < L::kHeaderSize)
    return damaged(ErrorCode::Truncated, "analysis index shorter than its header");
  if (std::memcmp(h, L::kMagic, sizeof L::kMagic) != 0) return damaged(ErrorCode::NotAGcsnapFile, "not an analysis index (magic)");
  if (L::load<uint64_t>(h + L::kOffHeaderHash) != format::xxh3_64(h, L::kOffHeaderHash))
    return damaged(ErrorCode::ChecksumMismatch, "analysis index header checksum");
  if (L::load<uint16_t>(h + L::kOffMajor) != L::kMajor)
    return damaged(ErrorCode::UnsupportedVersion, "analysis index of another major version");
  // (Major 2 kept its arrays uncoded: rebuilt once, like a stale one.)
  IndexHead out;
  out.minor = L::load<uint16_t>(h + L::kOffMinor);
  if (out.minor > L::kMinor) return damaged(ErrorCode::UnsupportedVersion, "analysis index of a newer minor version");
  L::Counts& c = out.counts;
  c.flags = L::load<uint32_t>(h + L::kOffFlags);
  const bool holders = (c.flags & L::kFlagHolders) != 0, nearest = (c.flags & L::kFlagNearest) != 0;
  const bool heads = (c.flags & L::kFlagHeads) != 0;
  if ((c.flags & ~L::known_flags(out.minor)) || ((nearest || heads) && !holders))
    return damaged(ErrorCode::CorruptSection, "analysis index unknown flags");
  // Without the holder table its header fields are reserved too (all of them at minor 0), and
  // without the nearest instances theirs.
  for (size_t i = nearest   ? L::kOffArrayHashes
                  : holders ? L::kOffNearestRows
                            : L::kOffHolderHash;
       i < L::kOffArrayHashes; ++i)
    if (h[i] != std::byte{0}) return damaged(ErrorCode::CorruptSection, "analysis index reserved bytes not zero");
  if (expected && !(identity_in_header(h) == *expected))
    return damaged(ErrorCode::InconsistentData, "stale analysis index (the recording changed)");
  c.nodes = L::load<uint64_t>(h + L::kOffNodes);
  c.edges = L::load<uint64_t>(h + L::kOffEdges);
  c.roots = L::load<uint64_t>(h + L::kOffRoots);
  c.unresolved = L::load<uint64_t>(h + L::kOffUnresolved);
  c.dependent = L::load<uint64_t>(h + L::kOffDependent);
  c.preorder = L::load<uint64_t>(h + L::kOffPreorder);
  c.types = L::load<uint64_t>(h + L::kOffTypes);
  c.holder_rows = L::load<uint32_t>(h + L::kOffHolderRows);
  c.holder_text = L::load<uint32_t>(h + L::kOffHolderText);
  c.nearest_rows = L::load<uint32_t>(h + L::kOffNearestRows);
  c.nearest_per_type = L::load<uint32_t>(h + L::kOffNearestPerType);
  out.wide_offsets = (c.flags & L::kFlagWideOffsets) != 0;
  if (c.nodes > kMaxNodes || c.preorder > c.nodes || c.roots + c.unresolved > 0xFFFFFFFFu ||
      (!out.wide_offsets && c.edges > UINT32_MAX) || c.holder_rows > c.types || c.nearest_rows > c.preorder ||
      (nearest && c.nearest_per_type == 0))
    return damaged(ErrorCode::CorruptSection, "analysis index counts out of range");
  const auto place = L::place(c);
  if (!place) return damaged(ErrorCode::CorruptSection, "analysis index counts out of range");
  out.place = *place;
  // The directory (§12.3): its checksum, and coded lengths that add up to the file's size.
  if (file_size < L::kFirstArray || head.size() < L::kFirstArray)
    return damaged(ErrorCode::Truncated, "analysis index shorter than its directory");
  const std::byte* dir = h + L::kDirectoryOffset;
  if (L::load<uint64_t>(h + L::kOffDirectoryHash) != format::xxh3_64(dir, L::kDirectorySize))
    return damaged(ErrorCode::ChecksumMismatch, "analysis index directory checksum");
  uint64_t at = L::kFirstArray;
  for (size_t a = 0; a < L::kArrayCount; ++a) {
    const uint64_t len = L::load<uint64_t>(a < L::kDirectoryEntries ? dir + 8 * a : h + L::kOffHolderCoded);
    if (len > file_size - at) return damaged(ErrorCode::Truncated, "analysis index size does not match its directory");
    out.begin[a] = at;
    out.length[a] = len;
    out.hashes[a] = L::load<uint64_t>(h + L::hash_offset(a));
    at += len;
  }
  if (at != file_size) return damaged(ErrorCode::Truncated, "analysis index size does not match its directory");
  return out;
}

}  // namespace gcsnap::detail
