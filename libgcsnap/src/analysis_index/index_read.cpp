// Reading an analysis index (format-spec.md §12.4): the header and the directory are always
// checked; the arrays of the parts the caller asks for are decoded (their zstd frames on two
// threads) into an image laid out as format-spec.md §12.3 places them, each array's checksum
// and rules are checked there before anything of it is used, and the arrays are then used in
// place in the image. A command decodes only the arrays it uses.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <optional>
#include <vector>

#include "gcsnap/analysis_index.hpp"
#include "analysis_index/index_codec.hpp"
#include "analysis_index/index_header.hpp"
#include "analysis_index/index_parse.hpp"
#include "analysis_index/index_pieces.hpp"
#include "format/xxh3_wide.hpp"
#include "huge_pages.hpp"
#include "platform/file_io.hpp"
#include "platform/memory_map.hpp"

namespace gcsnap {

namespace {

namespace L = index_layout;

// A mapped file; unmapped when the last AnalysisIndex part using it goes.
struct Mapping {
  void* base = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (base) platform::unmap_file(base, size);
  }
};

// The decoded arrays (format-spec.md §12.3 placement), in zeroed pages: the pages of the
// arrays not asked for are never touched.
struct Image {
  void* base = nullptr;
  size_t size = 0;
  ~Image() {
    if (base) platform::free_pages(base, size);
  }
};

}  // namespace

namespace detail {

Result<detail::IndexHeaderFacts> IndexParse::header_facts(const IndexIdentity* expected) {
  if (auto failure = read_header(expected)) return *failure;
  detail::IndexHeaderFacts f;
  f.counts = c_;
  f.place = place_;
  f.coded = coded_;
  f.root_entries = root_total_;
  f.minor = minor_;
  f.has_dependent_handles = (c_.flags & L::kFlagDependent) != 0;
  for (size_t a = 0; a < L::kArrayCount; ++a) f.hashes[a] = L::load<uint64_t>(h_ + L::hash_offset(a));
  uint64_t stats[7];
  std::memcpy(stats, h_ + L::kOffStats, sizeof stats);
  f.stats = GraphBuildStats{stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6]};
  f.reachable_bytes = L::load<uint64_t>(h_ + L::kOffReachableBytes);
  f.unreachable_bytes = L::load<uint64_t>(h_ + L::kOffUnreachableBytes);
  return f;
}

Result<AnalysisIndex> IndexParse::run(const IndexIdentity* expected, IndexParts want) {
  if (auto failure = read_header(expected)) return *failure;
  want_ = widen(want);
  try {
    if (auto failure = decode_arrays()) return *failure;
    // One job per array (or per arrays checked together), run on two threads: the first
    // failure in this order is the one reported, as if they had run one after another.
    CheckJobs jobs;
    add_root_checks(jobs);
    add_object_checks(jobs);
    add_graph_checks(jobs);
    add_dominator_checks(jobs);
    add_path_tree_checks(jobs);
    add_type_checks(jobs);
    if (auto failure = jobs.run(bytes_, place_.file_size)) return *failure;
    if (auto failure = check_root_marks()) return *failure;
    if (auto failure = check_dependent_edges()) return *failure;
    if (auto failure = check_holders()) return *failure;
    return assemble();
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index");
  }
}

std::optional<Error> IndexParse::read_header(const IndexIdentity* expected) {
  auto head = detail::check_index_head(bytes_, bytes_.size(), expected);
  if (!head) return head.error();
  c_ = head->counts;
  place_ = head->place;
  wide_ = head->wide_offsets;
  minor_ = head->minor;
  for (size_t a = 0; a < L::kArrayCount; ++a)
    coded_[a] = {reinterpret_cast<const unsigned char*>(bytes_.data() + head->begin[a]),
                 static_cast<size_t>(head->length[a])};
  n_ = static_cast<size_t>(c_.nodes);
  m_ = c_.edges;
  root_total_ = c_.roots + c_.unresolved;
  return std::nullopt;
}

IndexParts IndexParse::widen(IndexParts want) {
  want &= kIndexAll;
  if (want & (kIndexSlots | kIndexPathTree)) want |= kIndexForward;
  if (want & kIndexHolders) want |= kIndexTypes;
  if (want & (kIndexForward | kIndexReverse | kIndexDominators)) want |= kIndexObjects;
  if (want & kIndexObjects) want |= kIndexTypeIds;
  return want;
}

std::array<bool, L::kArrayCount> IndexParse::arrays_needed() const {
  std::array<bool, L::kArrayCount> need{};
  need[L::kRoots] = need[L::kUnresolved] = true;
  if (wanted(kIndexTypeIds)) need[L::kTypeIds] = true;
  if (wanted(kIndexObjects)) need[L::kAddresses] = need[L::kSizes] = need[L::kGenerations] = true;
  if (wanted(kIndexForward)) need[L::kForwardOffsets] = need[L::kForwardTargets] = need[L::kDependentEdges] = true;
  if (wanted(kIndexReverse)) need[L::kReverseOffsets] = need[L::kReverseSources] = true;
  if (wanted(kIndexSlots)) need[L::kSlots] = true;
  if (wanted(kIndexDominators)) need[L::kPreorder] = need[L::kIdom] = need[L::kRetained] = true;
  if (wanted(kIndexTypes)) need[L::kTypes] = true;
  if (wanted(kIndexPathTree)) need[L::kPathParents] = true;
  if (wanted(kIndexHolders) && (c_.flags & L::kFlagHolders)) need[L::kHolders] = true;
  return need;
}

std::optional<Error> IndexParse::decode_arrays() {
  struct Frame {
    size_t which, index;
    std::span<const unsigned char> coded;
  };
  std::vector<Frame> frames;
  const auto need = arrays_needed();
  for (size_t a = 0; a < L::kArrayCount; ++a) {
    if (!need[a]) continue;
    auto split = detail::split_frames(coded_[a], place_.bytes[a]);
    if (!split) return damaged(ErrorCode::CorruptSection, "analysis index array frames do not match its length");
    for (size_t f = 0; f < split->size(); ++f) frames.push_back(Frame{a, f, (*split)[f]});
  }
  auto image = std::make_shared<Image>();
  const size_t page = platform::page_size();
  image->size = static_cast<size_t>((place_.file_size + page - 1) / page * page);
  image->base = platform::allocate_pages(image->size);
  if (!image->base) return make_error(ErrorCode::OutOfMemory, "out of memory decoding the analysis index");
  // The arrays decoded are written once, whole: a fault per 2 MiB, not per 4 KiB (the arrays not
  // decoded stay untouched but for the 2 MiB pages they share with one that is).
  advise_huge_pages(image->base, image->size);
  auto* base = static_cast<unsigned char*>(image->base);
  std::memcpy(base, h_, L::kHeaderSize);
  std::atomic<size_t> next{0};
  std::atomic<bool> bad{false};
  auto work = [&]() noexcept {
    try {
      for (size_t k; (k = next.fetch_add(1)) < frames.size() && !bad.load();) {
        const Frame& f = frames[k];
        const uint64_t from = uint64_t{f.index} * detail::kFrameBytes;
        const size_t len = static_cast<size_t>(std::min<uint64_t>(detail::kFrameBytes, place_.bytes[f.which] - from));
        const std::span<unsigned char> out(base + place_.offset[f.which] + from, len);
        if (!detail::decode_frame(f.coded, f.index, L::coding(f.which, wide_), out)) bad.store(true);
      }
    } catch (const std::bad_alloc&) {
      out_of_memory_.store(true);
      bad.store(true);
    }
  };
  run_on_two_threads(work, frames.size() > 2);
  if (out_of_memory_.load()) return make_error(ErrorCode::OutOfMemory, "out of memory decoding the analysis index");
  if (bad.load()) return damaged(ErrorCode::ChecksumMismatch, "analysis index array does not decode");
  bytes_ = {reinterpret_cast<const std::byte*>(base), static_cast<size_t>(place_.file_size)};
  h_ = bytes_.data();
  keep_ = std::move(image);  // the file's bytes are no longer needed
  return std::nullopt;
}

AnalysisIndex IndexParse::assemble() {
  AnalysisIndex out;
  out.parts = want_;
  out.root_entries = root_total_;
  out.unreachable_objects = c_.nodes - c_.preorder;
  out.unreachable_bytes = L::load<uint64_t>(h_ + L::kOffUnreachableBytes);
  out.block_hash = L::load<uint64_t>(h_ + L::kOffBlockHash);
  uint64_t stats[7];
  std::memcpy(stats, h_ + L::kOffStats, sizeof stats);
  parts_.stats = GraphBuildStats{stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6]};
  parts_.has_dependent = (c_.flags & L::kFlagDependent) != 0;
  if (wanted(kIndexTypeIds) && !wanted(kIndexObjects)) {
    parts_.nodes = n_;
    parts_.type_ids = u32s(L::kTypeIds).data();
  } else if (wanted(kIndexObjects)) {
    parts_.nodes = n_;
    parts_.edges = wanted(kIndexForward) ? m_ : 0;
    parts_.addresses = u64s(L::kAddresses).data();
    parts_.sizes = u64s(L::kSizes).data();
    parts_.type_ids = u32s(L::kTypeIds).data();
    parts_.forward = {forward_narrow(), forward_wide(), forward_targets()};
    if (wanted(kIndexReverse))
      parts_.reverse = {wide_ ? std::span<const uint32_t>() : u32s(L::kReverseOffsets),
                        wide_ ? u64s(L::kReverseOffsets) : std::span<const uint64_t>(), u32s(L::kReverseSources)};
    out.generations = {reinterpret_cast<const Generation*>(at(L::kGenerations)), n_};
  } else {
    // No nodes: the roots (which name nodes) stay out of the graph too.
    parts_.roots.clear();
    parts_.unresolved_roots.clear();
  }
  out.graph = AnalysisIndexAccess::make_graph(std::move(parts_), keep_);
  if (wanted(kIndexDominators))
    out.dominators = AnalysisIndexAccess::make_dominators(
        u32s(L::kIdom), u64s(L::kRetained), u32s(L::kPreorder), L::load<uint64_t>(h_ + L::kOffReachableBytes),
        L::load<uint64_t>(h_ + L::kOffUnreachableBytes), keep_);
  if (wanted(kIndexSlots) && (c_.flags & L::kFlagSlots)) out.edge_slots = AnalysisIndexAccess::make_slots(u32s(L::kSlots), keep_);
  if (wanted(kIndexPathTree)) out.path_parents = u32s(L::kPathParents);
  out.type_stats = std::move(types_);
  out.type_holders = std::move(holders_);
  out.nearest_instances = std::move(nearest_);
  out.largest_heads = std::move(heads_);
  out.has_dependent_handles = (c_.flags & L::kFlagDependent) != 0;
  out.storage = std::move(keep_);
  return out;
}

}  // namespace detail

namespace {

using detail::damaged;
using detail::IndexParse;

Result<AnalysisIndex> parse(std::span<const std::byte> bytes, const IndexIdentity* expected, IndexParts want) {
  IndexParse parse(bytes);
  return parse.run(expected, want);
}

}  // namespace

Result<ShortestPathTree> kept_path_tree(const AnalysisIndex& index, const HeapGraph& graph) {
  // The tree reaches what the dominator tree does: the objects strong roots reach (§12.4).
  return ShortestPathTree::from_parents(graph, index.path_parents, graph.node_count() - index.unreachable_objects,
                                        index.storage);
}

Result<AnalysisIndex> analysis_index_from_bytes(std::span<const std::byte> bytes, const IndexIdentity* expected,
                                    IndexParts parts) {
  return parse(bytes, expected, parts);
}

namespace detail {

Result<detail::IndexHeaderFacts> read_index_header(std::span<const std::byte> bytes, const IndexIdentity* expected) {
  IndexParse parse(bytes);
  return parse.header_facts(expected);
}

Result<MappedIndex> map_index_file(const std::string& path, const IndexIdentity& expected) {
  const platform::FileHandle fd = platform::open_file(path, platform::OpenMode::Read);
  if (fd == platform::kNoFile) {
    if (errno == ENOENT) return make_error(ErrorCode::NotFound, "no analysis index");
    return Error{ErrorCode::IoError, 0, "cannot open the analysis index", errno};
  }
  platform::FileInfo st;
  if (!platform::file_info(fd, st)) {
    const int e = errno;
    platform::close_file(fd);
    return Error{ErrorCode::IoError, 0, "cannot stat the analysis index", e};
  }
  // The header first: a stale index is told without mapping the rest.
  std::byte header[L::kHeaderSize];
  if (st.size < L::kHeaderSize || platform::read_at(fd, header, sizeof header, 0) != static_cast<int64_t>(sizeof header)) {
    platform::close_file(fd);
    return damaged(ErrorCode::Truncated, "analysis index shorter than its header");
  }
  if (std::memcmp(header, L::kMagic, sizeof L::kMagic) == 0 &&
      L::load<uint64_t>(header + L::kOffHeaderHash) == format::xxh3_64(header, L::kOffHeaderHash)) {
    const IndexIdentity id = detail::identity_in_header(header);
    if (!(id == expected)) {
      platform::close_file(fd);
      return damaged(ErrorCode::InconsistentData, "stale analysis index (the recording changed)");
    }
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<size_t>(st.size);
  mapping->base = platform::map_file(fd, mapping->size, false);
  if (!mapping->base) {
    const int e = errno;
    platform::close_file(fd);
    return Error{ErrorCode::IoError, 0, "cannot map the analysis index", e};
  }
  platform::close_file(fd);
  MappedIndex out;
  out.bytes = {static_cast<const std::byte*>(mapping->base), mapping->size};
  out.keep = std::move(mapping);
  return out;
}

}  // namespace detail

Result<AnalysisIndex> read_analysis_index(const std::string& path, const IndexIdentity& expected, IndexParts parts) {
  auto mapped = detail::map_index_file(path, expected);
  if (!mapped) return mapped.error();
  return parse(mapped->bytes, &expected, parts);  // decodes what it needs: the mapping goes after
}

Result<CheckedAnalysisIndex> check_analysis_index(const std::string& recording_path, const Recording& rec,
                                                  size_t gc_pos) {
  auto id = identify_gc(recording_path, rec, gc_pos);
  if (!id) return id.error();
  CheckedAnalysisIndex out;
  auto read = read_analysis_index(analysis_index_path(recording_path, id->gc_number), *id);
  if (!read) out.problem = read.error();
  return out;
}

}  // namespace gcsnap
