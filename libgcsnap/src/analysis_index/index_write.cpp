// Writing an analysis index file (format-spec.md §12.2-12.3): each array coded from where the
// analysis keeps it and appended, the header and the directory last, then the rename.
#include "analysis_index/index_write.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <new>

#include "format/xxh3_wide.hpp"

#include "analysis_index/index_access.hpp"
#include "analysis_index/index_codec.hpp"
#include "analysis_index/index_largest_heads.hpp"
#include "analysis_index/index_nearest_instances.hpp"
#include "analysis_index/index_type_holders.hpp"
#include "platform/file_io.hpp"
#include "platform/thread_cache.hpp"

namespace gcsnap::detail {

namespace L = index_layout;

namespace {

template <typename T>
void put(unsigned char* at, T value) {
  std::memcpy(at, &value, sizeof value);  // little-endian host (write_analysis_index checks)
}

bool pwrite_all(platform::FileHandle fd, const unsigned char* p, size_t n, uint64_t at) {
  while (n > 0) {
    const int64_t w = platform::write_at(fd, p, n, at);
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
    at += static_cast<uint64_t>(w);
  }
  return true;
}

}  // namespace

std::vector<unsigned char> encode_roots(std::span<const GraphRoot> roots) {
  std::vector<unsigned char> out(roots.size() * L::kRootRecord);
  unsigned char* rec = out.data();
  for (const GraphRoot& r : roots) {
    put(rec + L::kRootNode, r.node);
    put(rec + L::kRootIndex, r.root_index);
    put(rec + L::kRootId, r.root_id);
    rec[L::kRootKind] = static_cast<uint8_t>(r.kind);
    rec[L::kRootFlags] = r.flags;
    rec += L::kRootRecord;
  }
  return out;
}

std::vector<unsigned char> encode_dependent_edges(std::span<const std::pair<NodeIndex, NodeIndex>> edges) {
  std::vector<unsigned char> out(edges.size() * L::kDependentRecord);
  unsigned char* rec = out.data();
  for (const auto& [primary, secondary] : edges) {
    put(rec + L::kDependentPrimary, primary);
    put(rec + L::kDependentSecondary, secondary);
    rec += L::kDependentRecord;
  }
  return out;
}

std::vector<unsigned char> encode_type_stats(std::span<const TypeStats> types) {
  std::vector<unsigned char> out(types.size() * L::kTypeRecord);
  unsigned char* rec = out.data();
  for (const TypeStats& t : types) {
    put(rec + L::kTypeId, t.type_id);
    put(rec + L::kTypeCount, t.count);
    put(rec + L::kTypeShallow, t.shallow_bytes);
    put(rec + L::kTypeRetained, t.retained_bytes);
    put(rec + L::kTypeUnreachable, t.unreachable_count);
    for (size_t s = 0; s < kGenerationSlots; ++s) put(rec + L::kTypeGenerationBytes + 8 * s, t.generation_bytes[s]);
    rec += L::kTypeRecord;
  }
  return out;
}

L::Counts graph_counts(const HeapGraph& graph, bool has_dependent_handles, bool has_slots) {
  L::Counts c;
  c.nodes = graph.node_count();
  c.edges = graph.edge_count();
  c.roots = graph.roots().size();
  c.unresolved = graph.unresolved_roots().size();
  c.dependent = AnalysisIndexAccess::dependent_edges(graph).size();
  c.flags = (AnalysisIndexAccess::forward(graph).wide.empty() ? 0u : L::kFlagWideOffsets) |
            (has_dependent_handles ? L::kFlagDependent : 0u) | (has_slots ? L::kFlagSlots : 0u);
  return c;
}

std::array<unsigned char, L::kHeaderSize> index_header(const AnalysisIndex& ix, const IndexIdentity& id, const L::Counts& c) {
  std::array<unsigned char, L::kHeaderSize> header{};
  unsigned char* h = header.data();
  std::memcpy(h, L::kMagic, sizeof L::kMagic);
  put(h + L::kOffMajor, L::kMajor);
  put(h + L::kOffMinor, L::kMinor);
  put(h + L::kOffFlags, c.flags);
  put(h + L::kOffFileSize, id.file_size);
  put(h + L::kOffMtime, id.mtime_ns);
  put(h + L::kOffGcNumber, id.gc_number);
  put(h + L::kOffBlockOffset, id.block_offset);
  put(h + L::kOffBlockSize, id.block_size);
  put(h + L::kOffSampleHash, id.block_sample_hash);
  put(h + L::kOffNodes, c.nodes);
  put(h + L::kOffEdges, c.edges);
  put(h + L::kOffRoots, c.roots);
  put(h + L::kOffUnresolved, c.unresolved);
  put(h + L::kOffDependent, c.dependent);
  put(h + L::kOffPreorder, c.preorder);
  put(h + L::kOffTypes, c.types);
  put(h + L::kOffHolderRows, static_cast<uint32_t>(c.holder_rows));
  put(h + L::kOffHolderText, static_cast<uint32_t>(c.holder_text));
  put(h + L::kOffNearestRows, static_cast<uint32_t>(c.nearest_rows));
  put(h + L::kOffNearestPerType, static_cast<uint32_t>(c.nearest_per_type));
  put(h + L::kOffReachableBytes, ix.dominators.reachable_bytes());
  put(h + L::kOffUnreachableBytes, ix.dominators.unreachable_bytes());
  const GraphBuildStats& s = ix.graph.stats();
  const uint64_t stats[7] = {s.references,     s.unresolved_references, s.null_roots,     s.unresolved_roots,
                             s.interior_roots, s.dependent_handles,     s.dependent_edges};
  std::memcpy(h + L::kOffStats, stats, sizeof stats);
  put(h + L::kOffBlockHash, ix.block_hash);
  return header;
}

namespace {

void write_forward_arrays_or_throw(IndexFile& file, const L::Placement& place, const HeapGraph& graph,
                                   std::span<const Generation> generations) {
  const auto fwd = AnalysisIndexAccess::forward(graph);
  const std::span<const uint64_t> addresses(AnalysisIndexAccess::addresses(graph), graph.node_count());
  file.write_array(L::kAddresses, place, index_bytes(addresses));
  file.write_array(L::kSizes, place, index_bytes(graph.sizes()));
  file.write_array(L::kTypeIds, place, index_bytes(graph.type_ids()));
  file.write_array(L::kGenerations, place, index_bytes(generations));
  file.write_array(L::kForwardOffsets, place, fwd.wide.empty() ? index_bytes(fwd.narrow) : index_bytes(fwd.wide));
  file.write_array(L::kForwardTargets, place, index_bytes(fwd.items));
}

void write_reverse_arrays_or_throw(IndexFile& file, const L::Placement& place, const HeapGraph& graph,
                                   const EdgeSlots& slots, IndexBytes reverse_offsets, IndexBytes reverse_sources) {
  file.write_array(L::kReverseOffsets, place, reverse_offsets);
  file.write_array(L::kReverseSources, place, reverse_sources);
  file.write_array(L::kSlots, place, index_bytes(AnalysisIndexAccess::slots(slots)));
  file.write_array(L::kRoots, place, encode_roots(graph.roots()));
  file.write_array(L::kUnresolved, place, index_bytes(graph.unresolved_roots()));
  file.write_array(L::kDependentEdges, place, encode_dependent_edges(AnalysisIndexAccess::dependent_edges(graph)));
}

}  // namespace

void write_graph_arrays(IndexFile& file, const L::Placement& place, const HeapGraph& graph,
                        std::span<const Generation> generations, const EdgeSlots& slots, IndexBytes reverse_offsets,
                        IndexBytes reverse_sources) noexcept {
  write_forward_arrays(file, place, graph, generations);
  write_reverse_arrays(file, place, graph, slots, reverse_offsets, reverse_sources);
}

void write_forward_arrays(IndexFile& file, const L::Placement& place, const HeapGraph& graph,
                          std::span<const Generation> generations) noexcept {
  try {
    write_forward_arrays_or_throw(file, place, graph, generations);
  } catch (const std::bad_alloc&) {
    file.fail(ENOMEM);
  }
}

void write_reverse_arrays(IndexFile& file, const L::Placement& place, const HeapGraph& graph, const EdgeSlots& slots,
                          IndexBytes reverse_offsets, IndexBytes reverse_sources) noexcept {
  try {
    write_reverse_arrays_or_throw(file, place, graph, slots, reverse_offsets, reverse_sources);
  } catch (const std::bad_alloc&) {
    file.fail(ENOMEM);  // the records of the roots or the dependent edges
  }
}

void write_tree_arrays(IndexFile& file, const L::Placement& place, const DominatorTree& tree) {
  file.write_array(L::kPreorder, place, index_bytes(tree.preorder()));
  file.write_array(L::kIdom, place, index_bytes(tree.immediate_dominators()));
  file.write_array(L::kRetained, place, index_bytes(tree.retained_sizes()));
}

Result<IndexFile> IndexFile::create(const std::string& path) {
  std::string tmp = path + ".tmp" + std::to_string(platform::current_process_id());
  const platform::FileHandle fd = platform::open_file(tmp, platform::OpenMode::CreateWrite);
  if (fd == platform::kNoFile) return Error{ErrorCode::IoError, 0, "cannot create the analysis index", errno};
  return IndexFile(path, std::move(tmp), fd);
}

IndexFile::IndexFile(IndexFile&& other) noexcept
    : path_(std::move(other.path_)), tmp_(std::move(other.tmp_)), fd_(other.fd_), error_(other.error_),
      hashes_(other.hashes_), coded_(other.coded_), next_(other.next_), end_(other.end_),
      memory_(std::move(other.memory_)) {
  other.fd_ = platform::kNoFile;
}

bool IndexFile::put_bytes(const unsigned char* p, size_t n, uint64_t at) {
  if (!in_memory_mode()) return pwrite_all(fd_, p, n, at);
  try {
    if (memory_.size() < at + n) memory_.resize(static_cast<size_t>(at + n));
  } catch (const std::bad_alloc&) {
    errno = ENOMEM;
    return false;
  }
  std::memcpy(memory_.data() + at, p, n);
  return true;
}

bool IndexFile::get_bytes(platform::FileHandle reader, unsigned char* p, size_t n, uint64_t at) const {
  if (in_memory_mode()) {
    if (at > memory_.size() || n > memory_.size() - at) return false;
    std::memcpy(p, memory_.data() + at, n);
    return true;
  }
  return platform::read_all_at(reader, p, n, at);
}

bool IndexFile::read_back(size_t which, const L::Placement& place, std::span<unsigned char> out) const {
  if (which >= next_ || out.size() != place.bytes[which]) return false;
  uint64_t at = L::kFirstArray;
  for (size_t a = 0; a < which; ++a) at += coded_[a];
  const uint64_t end = at + coded_[which];
  // The temporary file was opened to write only: a handle of its own to read it.
  const platform::FileHandle reader = in_memory_mode() ? platform::kNoFile : platform::open_file(tmp_, platform::OpenMode::Read);
  if (!in_memory_mode() && reader == platform::kNoFile) return false;
  const ArrayCoding coding = L::coding(which, place.wide);
  std::vector<unsigned char> frame;
  bool ok = true;
  for (size_t f = 0; ok && f * kFrameBytes < out.size(); ++f) {
    uint32_t length = 0;
    ok = end - at >= 4 && get_bytes(reader, reinterpret_cast<unsigned char*>(&length), 4, at) && length <= end - at - 4;
    if (!ok) break;
    frame.resize(length);
    const size_t from = f * kFrameBytes;
    ok = get_bytes(reader, frame.data(), length, at + 4) &&
         decode_frame(frame, f, coding, out.subspan(from, std::min(kFrameBytes, out.size() - from)));
    at += 4 + uint64_t{length};
  }
  if (reader != platform::kNoFile) platform::close_file(reader);
  return ok && at == end && format::xxh3_64(out.data(), out.size()) == hashes_[which];
}

IndexFile::~IndexFile() {
  if (fd_ == platform::kNoFile) return;
  const int saved = errno;
  platform::close_file(fd_);
  platform::remove_file(tmp_);
  errno = saved;
}

void IndexFile::write_array(size_t which, const L::Placement& place, IndexBytes bytes) {
  if (error_ != 0) return;
  if (bytes.size() != place.bytes[which] || which != next_) {
    error_ = EINVAL;  // the arrays do not match their counts or order: no file rather than a wrong one
    return;
  }
  // A frame at a time through one reused buffer: the coded array is never whole in memory
  // (it was up to 2x its coded size while the vector grew, beside the arrays being computed).
  try {
    auto& coded = platform::thread_cached<std::vector<unsigned char>, struct CodedFrame>();
    const ArrayCoding coding = L::coding(which, place.wide);
    uint64_t at = end_;
    for (size_t f = 0; f * kFrameBytes < bytes.size(); ++f) {
      coded.clear();
      if (!encode_frame(bytes, f, coding, coded)) {
        error_ = EIO;
        return;
      }
      if (!put_bytes(coded.data(), coded.size(), at)) {
        error_ = errno != 0 ? errno : EIO;
        return;
      }
      at += coded.size();
    }
    hashes_[which] = format::xxh3_64(bytes.data(), bytes.size());
    coded_[which] = at - end_;
    end_ = at;
    ++next_;
  } catch (const std::bad_alloc&) {
    error_ = ENOMEM;
  }
}

IndexFile::CodedArray IndexFile::code_array(size_t which, const L::Placement& place, IndexBytes bytes) noexcept {
  CodedArray out;
  out.raw_bytes = bytes.size();
  if (bytes.size() != place.bytes[which]) {
    out.error = EINVAL;
    return out;
  }
  try {
    if (!encode_array(bytes, L::coding(which, place.wide), out.coded)) out.error = EIO;
    out.hash = format::xxh3_64(bytes.data(), bytes.size());
  } catch (const std::bad_alloc&) {
    out.error = ENOMEM;
  }
  return out;
}

bool IndexFile::decode_coded(size_t which, const L::Placement& place, const CodedArray& array,
                             std::span<unsigned char> out) {
  if (array.error != 0 || array.raw_bytes != out.size()) return false;
  auto frames = split_frames(array.coded, array.raw_bytes);
  if (!frames) return false;
  const ArrayCoding coding = L::coding(which, place.wide);
  for (size_t f = 0; f < frames->size(); ++f) {
    const size_t at = f * kFrameBytes;
    if (!decode_frame((*frames)[f], f, coding, out.subspan(at, std::min(kFrameBytes, out.size() - at)))) return false;
  }
  return format::xxh3_64(out.data(), out.size()) == array.hash;
}

void IndexFile::write_coded(size_t which, const L::Placement& place, const CodedArray& array) {
  if (error_ != 0) return;
  if (array.error != 0) {
    error_ = array.error;
    return;
  }
  if (array.raw_bytes != place.bytes[which] || which != next_) {
    error_ = EINVAL;
    return;
  }
  if (!put_bytes(array.coded.data(), array.coded.size(), end_)) {
    error_ = errno != 0 ? errno : EIO;
    return;
  }
  hashes_[which] = array.hash;
  coded_[which] = array.coded.size();
  end_ += array.coded.size();
  ++next_;
}

Status IndexFile::fail_and_remove(const char* detail, int error) {
  if (in_memory_mode()) {
    std::vector<unsigned char>().swap(memory_);
    return Error{error == ENOMEM ? ErrorCode::OutOfMemory : ErrorCode::IoError, 0, detail, error};
  }
  if (fd_ != platform::kNoFile) platform::close_file(fd_);
  fd_ = platform::kNoFile;
  platform::remove_file(tmp_);
  return Error{ErrorCode::IoError, 0, detail, error};
}

Status IndexFile::finish(std::array<unsigned char, L::kHeaderSize> header) {
  // Every array, but the holder table only with its flag (format-spec.md §12.2).
  const bool holders = (L::load<uint32_t>(header.data() + L::kOffFlags) & L::kFlagHolders) != 0;
  if (error_ == 0 && next_ != (holders ? L::kArrayCount : L::kHolders)) error_ = EINVAL;
  if (error_ != 0) return fail_and_remove("cannot write the analysis index", error_);
  std::array<unsigned char, L::kDirectorySize> directory{};
  for (size_t a = 0; a < next_; ++a) {
    put(header.data() + L::hash_offset(a), hashes_[a]);
    if (a < L::kDirectoryEntries) put(directory.data() + 8 * a, coded_[a]);
    else put(header.data() + L::kOffHolderCoded, coded_[a]);
  }
  put(header.data() + L::kOffDirectoryHash, format::xxh3_64(directory.data(), directory.size()));
  put(header.data() + L::kOffHeaderHash, format::xxh3_64(header.data(), L::kOffHeaderHash));
  if (in_memory_mode()) {
    if (!put_bytes(header.data(), header.size(), 0) ||
        !put_bytes(directory.data(), directory.size(), L::kDirectoryOffset))
      return fail_and_remove("cannot write the analysis index", errno);
    memory_.resize(static_cast<size_t>(end_));  // an empty last array leaves nothing to grow it
    return Status::ok();
  }
  if (!platform::resize_file(fd_, end_) || !put_bytes(header.data(), header.size(), 0) ||
      !put_bytes(directory.data(), directory.size(), L::kDirectoryOffset))
    return fail_and_remove("cannot write the analysis index", errno);
  const platform::FileHandle fd = fd_;
  fd_ = platform::kNoFile;
  if (!platform::close_file(fd) || !platform::replace_file(tmp_, path_)) {
    const int error = errno;
    platform::remove_file(tmp_);
    return Error{ErrorCode::IoError, 0, "cannot write the analysis index", error};
  }
  return Status::ok();
}

}  // namespace gcsnap::detail

namespace gcsnap {

Status write_analysis_index(const AnalysisIndex& ix, const IndexIdentity& id, const std::string& path) {
  using detail::AnalysisIndexAccess;
  namespace L = index_layout;
  if constexpr (std::endian::native != std::endian::little)
    return make_error(ErrorCode::InvalidState, "analysis indexes are written on little-endian hosts only");
  const HeapGraph& g = ix.graph;
  if (!g.has_reverse() || ix.dominators.immediate_dominators().size() != g.node_count() ||
      ix.generations.size() != g.node_count() || ix.path_parents.size() != g.node_count())
    return make_error(ErrorCode::InvalidArgument, "the analysis index is incomplete");
  try {
    L::Counts c = detail::graph_counts(g, ix.has_dependent_handles, !ix.edge_slots.empty());
    c.preorder = ix.dominators.preorder().size();
    c.types = ix.type_stats.size();
    std::vector<unsigned char> holders;
    if (ix.type_holders || ix.nearest_instances || ix.largest_heads) {
      if (ix.type_holders) holders = detail::encode_type_holders(*ix.type_holders);
      c.holder_rows = ix.type_holders ? ix.type_holders->size() : 0;
      c.holder_text = holders.size() - c.holder_rows * L::kHolderRecord;
      c.flags |= L::kFlagHolders;
    }
    if (ix.nearest_instances) {
      detail::encode_nearest_instances(*ix.nearest_instances, holders);
      c.nearest_rows = ix.nearest_instances->rows.size();
      c.nearest_per_type = ix.nearest_instances->per_type;
      c.flags |= L::kFlagNearest;
    }
    if (ix.largest_heads) {
      detail::encode_largest_heads(*ix.largest_heads, holders);
      c.flags |= L::kFlagHeads;
    }
    const auto place = L::place(c);
    if (!place) return make_error(ErrorCode::LimitExceeded, "the analysis index would be too large");
    auto file = detail::IndexFile::create(path);
    if (!file) return file.error();
    const auto rev = AnalysisIndexAccess::reverse(g);
    const auto rev_offsets = rev.wide.empty() ? detail::index_bytes(rev.narrow) : detail::index_bytes(rev.wide);
    detail::write_graph_arrays(*file, *place, g, ix.generations, ix.edge_slots, rev_offsets,
                               detail::index_bytes(rev.items));
    detail::write_tree_arrays(*file, *place, ix.dominators);
    file->write_array(L::kTypes, *place, detail::encode_type_stats(ix.type_stats));
    file->write_array(L::kPathParents, *place, detail::index_bytes(ix.path_parents));
    if (c.flags & L::kFlagHolders) file->write_array(L::kHolders, *place, holders);
    return file->finish(detail::index_header(ix, id, c));
  } catch (const std::bad_alloc&) {
    return Error{ErrorCode::IoError, 0, "cannot write the analysis index", ENOMEM};
  }
}

}  // namespace gcsnap
