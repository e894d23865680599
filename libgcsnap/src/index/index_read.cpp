// Reading an analysis index (format-spec.md §12.4): every check before anything is used, then
// the arrays are used in place from the mapping. The checks stream over the file once and give
// back the pages they touched, so a command answering from the index holds only the pages its
// question needs.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <new>
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

// Hashes the payload in file order and, for a mapped file, gives each checked chunk's pages
// back (MADV_DONTNEED on a read-only file mapping drops them from this process only).
class PayloadPass {
 public:
  PayloadPass(std::span<const std::byte> bytes, bool mapped) : bytes_(bytes), mapped_(mapped) {
    XXH3_64bits_reset(&hash_);
  }
  // Hash [done_, end) and release it.
  void advance(uint64_t end) {
    if (end <= done_) return;
    XXH3_64bits_update(&hash_, bytes_.data() + done_, static_cast<size_t>(end - done_));
    if (mapped_) {
      const uint64_t page = 4096;
      const uint64_t from = (done_ + page - 1) / page * page, to = end / page * page;
      if (to > from) ::madvise(const_cast<std::byte*>(bytes_.data()) + from, static_cast<size_t>(to - from), MADV_DONTNEED);
    }
    done_ = end;
  }
  uint64_t digest() const noexcept { return XXH3_64bits_digest(&hash_); }

 private:
  std::span<const std::byte> bytes_;
  bool mapped_;
  uint64_t done_ = L::kHeaderSize;
  XXH3_state_t hash_{};
};

// Visit the elements of array WHICH chunk by chunk, then hash and release each chunk. CHECK
// returns false on the first bad element.
template <typename T, typename Check>
bool each(std::span<const std::byte> bytes, const L::Placement& place, size_t which, size_t record, PayloadPass& pass,
          Check&& check) {
  const uint64_t begin = place.offset[which], end = begin + place.bytes[which];
  pass.advance(begin);  // the padding before the array
  const size_t per_chunk = kChunk / record;
  uint64_t index = 0;
  for (uint64_t at = begin; at < end;) {
    const uint64_t stop = std::min<uint64_t>(end, at + per_chunk * record);
    for (; at < stop; at += record, ++index)
      if (!check(get<T>(bytes.data() + at), bytes.data() + at, index)) return false;
    pass.advance(stop);
  }
  return true;
}

Result<GcIndex> parse(std::span<const std::byte> bytes, const IndexIdentity* expected,
                      std::shared_ptr<const void> keep, bool mapped) {
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
  for (size_t i = L::kOffReserved; i < L::kOffPayloadHash; ++i)
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

  try {
    PayloadPass pass(bytes, mapped);
    // 1-4: object columns.
    uint64_t previous = 0;
    if (!each<uint64_t>(bytes, *place, L::kAddresses, 8, pass, [&](uint64_t a, const std::byte*, uint64_t i) {
          const bool ok = i == 0 || a > previous;
          previous = a;
          return ok;
        }))
      return damaged(ErrorCode::CorruptSection, "analysis index addresses not increasing");
    auto any = [](auto, const std::byte*, uint64_t) { return true; };
    each<uint64_t>(bytes, *place, L::kSizes, 8, pass, any);
    each<uint32_t>(bytes, *place, L::kTypeIds, 4, pass, any);
    if (!each<uint8_t>(bytes, *place, L::kGenerations, 1, pass,
                       [](uint8_t g, const std::byte*, uint64_t) { return g <= 5 || g == 0xFF; }))
      return damaged(ErrorCode::CorruptSection, "analysis index generation out of range");
    // 5-8: CSR both ways.
    auto offsets_ok = [&](size_t which) {
      uint64_t last = 0;
      auto check = [&](auto o, const std::byte*, uint64_t i) {
        const uint64_t v = o;
        const bool ok = (i == 0 ? v == 0 : v >= last) && v <= m && (i != n || v == m);
        last = v;
        return ok;
      };
      return wide ? each<uint64_t>(bytes, *place, which, 8, pass, check) : each<uint32_t>(bytes, *place, which, 4, pass, check);
    };
    auto nodes_ok = [&](size_t which) {
      return each<uint32_t>(bytes, *place, which, 4, pass, [&](uint32_t v, const std::byte*, uint64_t) { return v < n; });
    };
    if (!offsets_ok(L::kForwardOffsets) || !nodes_ok(L::kForwardTargets) || !offsets_ok(L::kReverseOffsets) ||
        !nodes_ok(L::kReverseSources))
      return damaged(ErrorCode::CorruptSection, "analysis index graph arrays out of range");
    each<uint32_t>(bytes, *place, L::kSlots, 4, pass, any);
    // 10-12: roots and dependent edges (small: copied).
    AnalysisIndexAccess::GraphParts parts;
    const uint64_t root_total = c.roots + c.unresolved;
    parts.roots.reserve(static_cast<size_t>(c.roots));
    if (!each<uint32_t>(bytes, *place, L::kRoots, L::kRootRecord, pass, [&](uint32_t node, const std::byte* at, uint64_t) {
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
          return node < n && kind <= static_cast<uint8_t>(RootKind::Handle) && r.root_index < root_total;
        }))
      return damaged(ErrorCode::CorruptSection, "analysis index root out of range");
    parts.unresolved_roots.reserve(static_cast<size_t>(c.unresolved));
    if (!each<uint32_t>(bytes, *place, L::kUnresolved, 4, pass, [&](uint32_t r, const std::byte*, uint64_t) {
          parts.unresolved_roots.push_back(r);
          return r < root_total;
        }))
      return damaged(ErrorCode::CorruptSection, "analysis index unresolved root out of range");
    parts.dependent_edges.reserve(static_cast<size_t>(c.dependent));
    if (!each<uint64_t>(bytes, *place, L::kDependentEdges, 8, pass, [&](uint64_t, const std::byte* at, uint64_t i) {
          const std::pair<NodeIndex, NodeIndex> e{get<uint32_t>(at), get<uint32_t>(at + 4)};
          const bool ok = e.first < n && e.second < n && (i == 0 || parts.dependent_edges.back() < e);
          parts.dependent_edges.push_back(e);
          return ok;
        }))
      return damaged(ErrorCode::CorruptSection, "analysis index dependent edges out of range or order");
    // 13-15: the dominator tree. The preorder marks the reachable nodes, the dominators must agree.
    std::vector<bool> reachable(n, false);
    if (!each<uint32_t>(bytes, *place, L::kPreorder, 4, pass, [&](uint32_t v, const std::byte*, uint64_t) {
          if (v >= n || reachable[v]) return false;
          reachable[v] = true;
          return true;
        }))
      return damaged(ErrorCode::CorruptSection, "analysis index preorder out of range or repeated");
    if (!each<uint32_t>(bytes, *place, L::kIdom, 4, pass, [&](uint32_t d, const std::byte*, uint64_t v) {
          if (!reachable[v]) return d == kNoNode;
          return d == kVirtualRoot || (d < n && reachable[d]);
        }))
      return damaged(ErrorCode::CorruptSection, "analysis index dominators do not match the preorder");
    std::vector<bool>().swap(reachable);
    each<uint64_t>(bytes, *place, L::kRetained, 8, pass, any);
    // 16: the type histogram (small: copied).
    std::vector<TypeStats> types;
    types.reserve(static_cast<size_t>(c.types));
    if (!each<uint32_t>(bytes, *place, L::kTypes, L::kTypeRecord, pass, [&](uint32_t type, const std::byte* at, uint64_t i) {
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
          const bool ok = get<uint32_t>(at + 4) == 0 && (i == 0 || types.back().type_id < type) && sums &&
                          by_generation == t.shallow_bytes;
          types.push_back(t);
          return ok;
        }))
      return damaged(ErrorCode::CorruptSection, "analysis index type histogram not sorted or its generation bytes do not add up");
    pass.advance(bytes.size());
    if (pass.digest() != get<uint64_t>(h + L::kOffPayloadHash))
      return damaged(ErrorCode::ChecksumMismatch, "analysis index payload checksum");

    auto at = [&](size_t which) { return bytes.data() + place->offset[which]; };
    auto u32s = [&](size_t which) {
      return std::span<const uint32_t>(reinterpret_cast<const uint32_t*>(at(which)), static_cast<size_t>(place->bytes[which] / 4));
    };
    auto u64s = [&](size_t which) {
      return std::span<const uint64_t>(reinterpret_cast<const uint64_t*>(at(which)), static_cast<size_t>(place->bytes[which] / 8));
    };
    // Dependent edges are the last successors of their primary (edge_kind relies on it).
    const auto fwd_narrow = wide ? std::span<const uint32_t>() : u32s(L::kForwardOffsets);
    const auto fwd_wide = wide ? u64s(L::kForwardOffsets) : std::span<const uint64_t>();
    const auto targets = u32s(L::kForwardTargets);
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

    parts.nodes = n;
    parts.edges = m;
    parts.addresses = u64s(L::kAddresses).data();
    parts.sizes = u64s(L::kSizes).data();
    parts.type_ids = u32s(L::kTypeIds).data();
    parts.forward = {fwd_narrow, fwd_wide, targets};
    parts.reverse = {wide ? std::span<const uint32_t>() : u32s(L::kReverseOffsets),
                     wide ? u64s(L::kReverseOffsets) : std::span<const uint64_t>(), u32s(L::kReverseSources)};
    parts.has_dependent = (c.flags & L::kFlagDependent) != 0;
    uint64_t stats[7];
    std::memcpy(stats, h + L::kOffStats, sizeof stats);
    parts.stats = GraphBuildStats{stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6]};

    GcIndex out;
    out.graph = AnalysisIndexAccess::make_graph(std::move(parts), keep);
    out.dominators = AnalysisIndexAccess::make_dominators(
        u32s(L::kIdom), u64s(L::kRetained), u32s(L::kPreorder), get<uint64_t>(h + L::kOffReachableBytes),
        get<uint64_t>(h + L::kOffUnreachableBytes), keep);
    if (c.flags & L::kFlagSlots) out.edge_slots = AnalysisIndexAccess::make_slots(u32s(L::kSlots), keep);
    out.generations = {reinterpret_cast<const Generation*>(at(L::kGenerations)), n};
    out.type_stats = std::move(types);
    out.has_dependent_handles = (c.flags & L::kFlagDependent) != 0;
    out.storage = std::move(keep);
    return out;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index");
  }
}

}  // namespace

Result<GcIndex> gc_index_from_bytes(std::span<const std::byte> bytes, const IndexIdentity* expected) {
  return parse(bytes, expected, nullptr, false);
}

Result<GcIndex> read_gc_index(const std::string& path, const IndexIdentity& expected) {
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
  return parse(bytes, &expected, mapping, true);
}

}  // namespace gcsnap
