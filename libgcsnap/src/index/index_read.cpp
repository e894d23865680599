// Reading an analysis index (format-spec.md §12.4): the header is always checked; each array's
// checksum and rules only when the caller asks for the part it belongs to, before anything of
// it is used; then the arrays are used in place from the mapping. The checks give back the
// pages they touched, so a command answering from the index holds only the pages its question
// needs, and reads only the arrays it uses.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <new>
#include <optional>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gcsnap/analysis_index.hpp"
#include "index/index_access.hpp"
#include "index/index_layout.hpp"

namespace gcsnap {

using detail::AnalysisIndexAccess;
namespace L = index_layout;

namespace {

template <typename T>
T get(const std::byte* at) noexcept {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

Error damaged(ErrorCode code, const char* detail, uint64_t offset = 0) { return make_error(code, detail, offset); }

// A mapped file; unmapped when the last GcIndex part using it goes.
struct Mapping {
  void* base = MAP_FAILED;
  size_t size = 0;
  ~Mapping() {
    if (base != MAP_FAILED) ::munmap(base, size);
  }
};

constexpr size_t kChunk = size_t{4} << 20;

enum class ArrayCheck : uint8_t { Ok, BadElement, BadChecksum };

// Check array WHICH: visit its elements chunk by chunk (CHECK returns false on the first bad
// one) and hash each chunk after it, then compare with the array's checksum (§12.2). For a
// mapped file each checked chunk's pages are given back (MADV_DONTNEED on a read-only file
// mapping drops them from this process only): the command faults in only what it then uses.
template <typename T, typename Check>
ArrayCheck each(std::span<const std::byte> bytes, const L::Placement& place, size_t which, size_t record, bool mapped,
                Check&& check) {
  const uint64_t begin = place.offset[which], end = begin + place.bytes[which];
  XXH3_state_t hash;
  XXH3_64bits_reset(&hash);
  const size_t per_chunk = kChunk / record;
  uint64_t index = 0;
  for (uint64_t at = begin; at < end;) {
    const uint64_t from = at;
    const uint64_t stop = std::min<uint64_t>(end, at + per_chunk * record);
    for (; at < stop; at += record, ++index)
      if (!check(get<T>(bytes.data() + at), bytes.data() + at, index)) return ArrayCheck::BadElement;
    XXH3_64bits_update(&hash, bytes.data() + from, static_cast<size_t>(stop - from));
    if (mapped) {
      constexpr uint64_t page = 4096;
      const uint64_t lo = (from + page - 1) / page * page, hi = stop / page * page;
      if (hi > lo) ::madvise(const_cast<std::byte*>(bytes.data()) + lo, static_cast<size_t>(hi - lo), MADV_DONTNEED);
    }
  }
  const uint64_t expected = get<uint64_t>(bytes.data() + L::kOffArrayHashes + 8 * which);
  return XXH3_64bits_digest(&hash) == expected ? ArrayCheck::Ok : ArrayCheck::BadChecksum;
}

Result<GcIndex> parse(std::span<const std::byte> bytes, const IndexIdentity* expected,
                      std::shared_ptr<const void> keep, bool mapped, IndexParts want) {
  if constexpr (std::endian::native != std::endian::little)
    return make_error(ErrorCode::UnsupportedVersion, "analysis indexes are read on little-endian hosts only");
  if (bytes.size() < L::kHeaderSize) return damaged(ErrorCode::Truncated, "analysis index shorter than its header");
  const std::byte* h = bytes.data();
  if (std::memcmp(h, L::kMagic, sizeof L::kMagic) != 0)
    return damaged(ErrorCode::NotAGcsnapFile, "not an analysis index (magic)");
  if (get<uint64_t>(h + L::kOffHeaderHash) != XXH3_64bits(h, L::kOffHeaderHash))
    return damaged(ErrorCode::ChecksumMismatch, "analysis index header checksum");
  if (get<uint16_t>(h + L::kOffMajor) != L::kMajor)
    return damaged(ErrorCode::UnsupportedVersion, "analysis index of another major version");
  L::Counts c;
  c.flags = get<uint32_t>(h + L::kOffFlags);
  for (size_t i = L::kOffReserved; i < L::kOffArrayHashes; ++i)
    if (h[i] != std::byte{0}) return damaged(ErrorCode::CorruptSection, "analysis index reserved bytes not zero");
  if (c.flags & ~L::kKnownFlags) return damaged(ErrorCode::CorruptSection, "analysis index unknown flags");
  IndexIdentity id;
  id.file_size = get<uint64_t>(h + L::kOffFileSize);
  id.mtime_ns = get<uint64_t>(h + L::kOffMtime);
  id.gc_number = get<uint64_t>(h + L::kOffGcNumber);
  id.block_offset = get<uint64_t>(h + L::kOffBlockOffset);
  id.block_size = get<uint64_t>(h + L::kOffBlockSize);
  id.block_sample_hash = get<uint64_t>(h + L::kOffSampleHash);
  if (expected && !(id == *expected))
    return damaged(ErrorCode::InconsistentData, "stale analysis index (the recording changed)");
  c.nodes = get<uint64_t>(h + L::kOffNodes);
  c.edges = get<uint64_t>(h + L::kOffEdges);
  c.roots = get<uint64_t>(h + L::kOffRoots);
  c.unresolved = get<uint64_t>(h + L::kOffUnresolved);
  c.dependent = get<uint64_t>(h + L::kOffDependent);
  c.preorder = get<uint64_t>(h + L::kOffPreorder);
  c.types = get<uint64_t>(h + L::kOffTypes);
  const bool wide = (c.flags & L::kFlagWideOffsets) != 0;
  if (c.nodes > kMaxNodes || c.preorder > c.nodes || c.roots + c.unresolved > 0xFFFFFFFFu ||
      (!wide && c.edges > UINT32_MAX))
    return damaged(ErrorCode::CorruptSection, "analysis index counts out of range");
  const auto place = L::place(c);
  if (!place || place->file_size != bytes.size())
    return damaged(ErrorCode::Truncated, "analysis index size does not match its counts");
  const size_t n = static_cast<size_t>(c.nodes);
  const uint64_t m = c.edges;
  // What the parts asked for need (§12.4): node-indexed arrays come with the node columns.
  want &= kIndexAll;
  if (want & kIndexSlots) want |= kIndexForward;
  if (want & (kIndexForward | kIndexReverse | kIndexDominators)) want |= kIndexObjects;
  auto wanted = [&](IndexParts p) { return (want & p) != 0; };

  try {
    // Runs the checks of one array and turns a failure into the error naming it.
    std::optional<Error> failure;
    auto fail = [&](ArrayCheck r, const char* rule) {
      if (r == ArrayCheck::Ok) return false;
      failure = r == ArrayCheck::BadChecksum ? damaged(ErrorCode::ChecksumMismatch, "analysis index array checksum")
                                             : damaged(ErrorCode::CorruptSection, rule);
      return true;
    };
    auto any = [](auto, const std::byte*, uint64_t) { return true; };
    // A whole read also sees the padding between arrays (zero): a full check (gcsnap index,
    // verify) then covers every byte of the file.
    if (want == kIndexAll) {
      uint64_t from = L::kHeaderSize;
      for (size_t a = 0; a < L::kArrayCount; ++a) {
        for (uint64_t i = from; i < place->offset[a]; ++i)
          if (bytes[i] != std::byte{0}) return damaged(ErrorCode::CorruptSection, "analysis index padding not zero");
        from = place->offset[a] + place->bytes[a];
      }
    }
    // 10-11: roots, always (small: copied); their count ties the index to the GC's root table.
    AnalysisIndexAccess::GraphParts parts;
    const uint64_t root_total = c.roots + c.unresolved;
    parts.roots.reserve(static_cast<size_t>(c.roots));
    if (fail(each<uint32_t>(bytes, *place, L::kRoots, L::kRootRecord, mapped,
                            [&](uint32_t node, const std::byte* at, uint64_t) {
                              GraphRoot r;
                              r.node = node;
                              r.root_index = get<uint32_t>(at + 4);
                              r.root_id = get<uint64_t>(at + 8);
                              const auto kind = get<uint8_t>(at + 16);
                              r.flags = get<uint8_t>(at + 17);
                              for (size_t k = 18; k < L::kRootRecord; ++k)
                                if (at[k] != std::byte{0}) return false;
                              r.kind = static_cast<RootKind>(kind);
                              parts.roots.push_back(r);
                              return node < n && kind <= static_cast<uint8_t>(RootKind::Handle) &&
                                     r.root_index < root_total;
                            }),
             "analysis index root out of range"))
      return *failure;
    parts.unresolved_roots.reserve(static_cast<size_t>(c.unresolved));
    if (fail(each<uint32_t>(bytes, *place, L::kUnresolved, 4, mapped,
                            [&](uint32_t r, const std::byte*, uint64_t) {
                              parts.unresolved_roots.push_back(r);
                              return r < root_total;
                            }),
             "analysis index unresolved root out of range"))
      return *failure;
    // 1-4: object columns.
    if (wanted(kIndexObjects)) {
      uint64_t previous = 0;
      if (fail(each<uint64_t>(bytes, *place, L::kAddresses, 8, mapped,
                              [&](uint64_t a, const std::byte*, uint64_t i) {
                                const bool ok = i == 0 || a > previous;
                                previous = a;
                                return ok;
                              }),
               "analysis index addresses not increasing") ||
          fail(each<uint64_t>(bytes, *place, L::kSizes, 8, mapped, any), "") ||
          fail(each<uint32_t>(bytes, *place, L::kTypeIds, 4, mapped, any), "") ||
          fail(each<uint8_t>(bytes, *place, L::kGenerations, 1, mapped,
                             [](uint8_t g, const std::byte*, uint64_t) { return g <= 5 || g == 0xFF; }),
               "analysis index generation out of range"))
        return *failure;
    }
    // 5-8: CSR both ways.
    auto offsets = [&](size_t which) {
      uint64_t last = 0;
      auto check = [&](auto o, const std::byte*, uint64_t i) {
        const uint64_t v = o;
        const bool ok = (i == 0 ? v == 0 : v >= last) && v <= m && (i != n || v == m);
        last = v;
        return ok;
      };
      return wide ? each<uint64_t>(bytes, *place, which, 8, mapped, check)
                  : each<uint32_t>(bytes, *place, which, 4, mapped, check);
    };
    auto nodes = [&](size_t which) {
      return each<uint32_t>(bytes, *place, which, 4, mapped, [&](uint32_t v, const std::byte*, uint64_t) { return v < n; });
    };
    constexpr const char* kGraphRule = "analysis index graph arrays out of range";
    if (wanted(kIndexForward) && (fail(offsets(L::kForwardOffsets), kGraphRule) || fail(nodes(L::kForwardTargets), kGraphRule)))
      return *failure;
    if (wanted(kIndexReverse) && (fail(offsets(L::kReverseOffsets), kGraphRule) || fail(nodes(L::kReverseSources), kGraphRule)))
      return *failure;
    if (wanted(kIndexSlots) && fail(each<uint32_t>(bytes, *place, L::kSlots, 4, mapped, any), ""))
      return *failure;
    // 12: dependent edges, with the forward CSR (they are its last successors).
    if (wanted(kIndexForward)) {
      parts.dependent_edges.reserve(static_cast<size_t>(c.dependent));
      if (fail(each<uint64_t>(bytes, *place, L::kDependentEdges, 8, mapped,
                              [&](uint64_t, const std::byte* at, uint64_t i) {
                                const std::pair<NodeIndex, NodeIndex> e{get<uint32_t>(at), get<uint32_t>(at + 4)};
                                const bool ok =
                                    e.first < n && e.second < n && (i == 0 || parts.dependent_edges.back() < e);
                                parts.dependent_edges.push_back(e);
                                return ok;
                              }),
               "analysis index dependent edges out of range or order"))
        return *failure;
    }
    // 13-15: the dominator tree. The preorder marks the reachable nodes, the dominators must agree.
    if (wanted(kIndexDominators)) {
      std::vector<bool> reachable(n, false);
      if (fail(each<uint32_t>(bytes, *place, L::kPreorder, 4, mapped,
                              [&](uint32_t v, const std::byte*, uint64_t) {
                                if (v >= n || reachable[v]) return false;
                                reachable[v] = true;
                                return true;
                              }),
               "analysis index preorder out of range or repeated") ||
          fail(each<uint32_t>(bytes, *place, L::kIdom, 4, mapped,
                              [&](uint32_t d, const std::byte*, uint64_t v) {
                                if (!reachable[v]) return d == kNoNode;
                                return d == kVirtualRoot || (d < n && reachable[d]);
                              }),
               "analysis index dominators do not match the preorder") ||
          fail(each<uint64_t>(bytes, *place, L::kRetained, 8, mapped, any), ""))
        return *failure;
    }
    // 16: the type histogram (small: copied).
    std::vector<TypeStats> types;
    if (wanted(kIndexTypes)) {
      types.reserve(static_cast<size_t>(c.types));
      if (fail(each<uint32_t>(bytes, *place, L::kTypes, L::kTypeRecord, mapped,
                              [&](uint32_t type, const std::byte* at, uint64_t i) {
                                TypeStats t;
                                t.type_id = type;
                                t.count = get<uint64_t>(at + 8);
                                t.shallow_bytes = get<uint64_t>(at + 16);
                                t.retained_bytes = get<uint64_t>(at + 24);
                                t.unreachable_count = get<uint64_t>(at + 32);
                                uint64_t by_generation = 0;
                                bool sums = true;
                                for (size_t g = 0; g < kGenerationSlots; ++g) {
                                  t.generation_bytes[g] = get<uint64_t>(at + 40 + 8 * g);
                                  sums = sums && by_generation + t.generation_bytes[g] >= by_generation;  // no wrap
                                  by_generation += t.generation_bytes[g];
                                }
                                const bool ok = get<uint32_t>(at + 4) == 0 &&
                                                (i == 0 || types.back().type_id < type) && sums &&
                                                by_generation == t.shallow_bytes;
                                types.push_back(t);
                                return ok;
                              }),
               "analysis index type histogram not sorted or its generation bytes do not add up"))
        return *failure;
    }

    auto at = [&](size_t which) { return bytes.data() + place->offset[which]; };
    auto u32s = [&](size_t which) {
      return std::span<const uint32_t>(reinterpret_cast<const uint32_t*>(at(which)), static_cast<size_t>(place->bytes[which] / 4));
    };
    auto u64s = [&](size_t which) {
      return std::span<const uint64_t>(reinterpret_cast<const uint64_t*>(at(which)), static_cast<size_t>(place->bytes[which] / 8));
    };
    const auto fwd_narrow = wide || !wanted(kIndexForward) ? std::span<const uint32_t>() : u32s(L::kForwardOffsets);
    const auto fwd_wide = wide && wanted(kIndexForward) ? u64s(L::kForwardOffsets) : std::span<const uint64_t>();
    const auto targets = wanted(kIndexForward) ? u32s(L::kForwardTargets) : std::span<const uint32_t>();
    if (wanted(kIndexForward)) {
      // Dependent edges are the last successors of their primary (edge_kind relies on it).
      auto fwd = [&](size_t i) -> uint64_t { return wide ? fwd_wide[i] : fwd_narrow[i]; };
      for (size_t k = 0; k < parts.dependent_edges.size();) {
        const NodeIndex primary = parts.dependent_edges[k].first;
        size_t j = k;
        while (j < parts.dependent_edges.size() && parts.dependent_edges[j].first == primary) ++j;
        const uint64_t begin = fwd(primary), end = fwd(primary + size_t{1});
        if (end - begin < j - k) return damaged(ErrorCode::CorruptSection, "analysis index dependent edges do not match the graph");
        for (size_t e = 0; e < j - k; ++e)
          if (targets[static_cast<size_t>(end - (j - k) + e)] != parts.dependent_edges[k + e].second)
            return damaged(ErrorCode::CorruptSection, "analysis index dependent edges do not match the graph");
        k = j;
      }
    }

    GcIndex out;
    out.parts = want;
    out.root_entries = root_total;
    out.unreachable_objects = c.nodes - c.preorder;
    out.unreachable_bytes = get<uint64_t>(h + L::kOffUnreachableBytes);
    uint64_t stats[7];
    std::memcpy(stats, h + L::kOffStats, sizeof stats);
    parts.stats = GraphBuildStats{stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6]};
    parts.has_dependent = (c.flags & L::kFlagDependent) != 0;
    if (wanted(kIndexObjects)) {
      parts.nodes = n;
      parts.edges = wanted(kIndexForward) ? m : 0;
      parts.addresses = u64s(L::kAddresses).data();
      parts.sizes = u64s(L::kSizes).data();
      parts.type_ids = u32s(L::kTypeIds).data();
      parts.forward = {fwd_narrow, fwd_wide, targets};
      if (wanted(kIndexReverse))
        parts.reverse = {wide ? std::span<const uint32_t>() : u32s(L::kReverseOffsets),
                         wide ? u64s(L::kReverseOffsets) : std::span<const uint64_t>(), u32s(L::kReverseSources)};
      out.generations = {reinterpret_cast<const Generation*>(at(L::kGenerations)), n};
    } else {
      // No nodes: the roots (which name nodes) stay out of the graph too.
      parts.roots.clear();
      parts.unresolved_roots.clear();
    }
    out.graph = AnalysisIndexAccess::make_graph(std::move(parts), keep);
    if (wanted(kIndexDominators))
      out.dominators = AnalysisIndexAccess::make_dominators(
          u32s(L::kIdom), u64s(L::kRetained), u32s(L::kPreorder), get<uint64_t>(h + L::kOffReachableBytes),
          get<uint64_t>(h + L::kOffUnreachableBytes), keep);
    if (wanted(kIndexSlots) && (c.flags & L::kFlagSlots)) out.edge_slots = AnalysisIndexAccess::make_slots(u32s(L::kSlots), keep);
    out.type_stats = std::move(types);
    out.has_dependent_handles = (c.flags & L::kFlagDependent) != 0;
    out.storage = std::move(keep);
    return out;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index");
  }
}

}  // namespace

Result<GcIndex> gc_index_from_bytes(std::span<const std::byte> bytes, const IndexIdentity* expected,
                                    IndexParts parts) {
  return parse(bytes, expected, nullptr, false, parts);
}

Result<GcIndex> read_gc_index(const std::string& path, const IndexIdentity& expected, IndexParts parts) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return make_error(ErrorCode::NotFound, "no analysis index");
    return Error{ErrorCode::IoError, 0, "cannot open the analysis index", errno};
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return Error{ErrorCode::IoError, 0, "cannot stat the analysis index", e};
  }
  // The header first: a stale index is told without mapping the rest.
  std::byte header[L::kHeaderSize];
  if (static_cast<uint64_t>(st.st_size) < L::kHeaderSize ||
      ::pread(fd, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) {
    ::close(fd);
    return damaged(ErrorCode::Truncated, "analysis index shorter than its header");
  }
  if (std::memcmp(header, L::kMagic, sizeof L::kMagic) == 0 &&
      get<uint64_t>(header + L::kOffHeaderHash) == XXH3_64bits(header, L::kOffHeaderHash)) {
    IndexIdentity id{get<uint64_t>(header + L::kOffFileSize),    get<uint64_t>(header + L::kOffMtime),
                     get<uint64_t>(header + L::kOffGcNumber),    get<uint64_t>(header + L::kOffBlockOffset),
                     get<uint64_t>(header + L::kOffBlockSize),   get<uint64_t>(header + L::kOffSampleHash)};
    if (!(id == expected)) {
      ::close(fd);
      return damaged(ErrorCode::InconsistentData, "stale analysis index (the recording changed)");
    }
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<size_t>(st.st_size);
  mapping->base = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int e = errno;
  ::close(fd);
  if (mapping->base == MAP_FAILED) return Error{ErrorCode::IoError, 0, "cannot map the analysis index", e};
  const std::span<const std::byte> bytes(static_cast<const std::byte*>(mapping->base), mapping->size);
  return parse(bytes, &expected, mapping, true, parts);
}

}  // namespace gcsnap
