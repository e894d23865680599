// The analysis index: compute it from a recording, write it (format-spec.md §12), and the
// open-or-build policy the commands share.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gcsnap/analysis_index.hpp"
#include "index/index_access.hpp"
#include "index/index_layout.hpp"

namespace gcsnap {

using detail::AnalysisIndexAccess;
namespace L = index_layout;

std::string gc_index_path(const std::string& recording_path, uint64_t gc_number) {
  return recording_path + "." + std::to_string(gc_number) + ".gcidx";
}

namespace {

Status io_error(const char* detail) {
  Error e{ErrorCode::IoError, 0, detail, errno};
  return Status(e);
}

bool pread_all(int fd, void* out, size_t n, uint64_t at) {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
    at += static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace

Result<IndexIdentity> identify_gc(const std::string& recording_path, const Recording& rec, size_t gc_index) {
  if (gc_index >= rec.gcs().size()) return make_error(ErrorCode::NotFound, "no such GC in the recording");
  const GcEntry& entry = rec.gcs()[gc_index];
  const int fd = ::open(recording_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open the recording");
  struct stat st {};
  IndexIdentity id;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok) {
    id.file_size = static_cast<uint64_t>(st.st_size);
    id.mtime_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(st.st_mtim.tv_nsec);
    id.gc_number = entry.info.gc_number;
    id.block_offset = entry.block_offset;
    id.block_size = entry.block_size;
    const uint64_t sample = std::min<uint64_t>(L::kSampleBytes, entry.block_size);
    std::vector<char> bytes(static_cast<size_t>(2 * sample));
    ok = pread_all(fd, bytes.data(), static_cast<size_t>(sample), entry.block_offset) &&
         pread_all(fd, bytes.data() + sample, static_cast<size_t>(sample), entry.block_offset + entry.block_size - sample);
    if (ok) id.block_sample_hash = XXH3_64bits(bytes.data(), bytes.size());
  }
  const int saved = errno;
  ::close(fd);
  errno = saved;
  if (!ok) return io_error("cannot read the recording to identify its GC block");
  return id;
}

namespace {

// What a computed GcIndex's spans point into.
struct ComputedStorage {
  std::shared_ptr<const ObjectTable> objects;  // generations (and the graph's columns)
  std::vector<NodeIndex> path_parents;
};

}  // namespace

Result<GcIndex> compute_gc_index(const Recording& rec, size_t gc_index, const IndexProgress& progress) {
  auto stage = [&](std::string_view s) {
    if (progress) progress(s);
  };
  try {
    stage("decoding objects");
    auto objects = rec.read_objects(gc_index, ObjectReadOptions{true});
    if (!objects) return objects.error();
    auto owned = std::make_shared<ObjectTable>(std::move(objects).value());
    auto roots = rec.read_roots(gc_index);
    if (!roots) return roots.error();
    auto has_dependent = rec.has_dependent_handle_section(gc_index);
    if (!has_dependent) return has_dependent.error();
    auto dependent = rec.read_dependent_handles(gc_index);
    if (!dependent) return dependent.error();
    stage("building the graph");
    auto graph = HeapGraph::build(*owned, *roots, *has_dependent ? &*dependent : nullptr);
    if (!graph) return graph.error();
    auto slots = EdgeSlots::build(*owned, *graph);
    if (!slots) return slots.error();
    owned->release_references();
    stage("building the reverse graph");
    GCSNAP_RETURN_IF_ERROR(graph->build_reverse());
    stage("computing dominators");
    // The shortest-path tree is a BFS that only reads the graph: it runs beside the dominators
    // on the second core (or after them when no thread can be started).
    std::optional<Result<ShortestPathTree>> bfs;
    auto run_bfs = [&] { bfs.emplace(ShortestPathTree::compute(*graph, RetentionOptions{})); };
    std::thread beside;
    try {
      beside = std::thread(run_bfs);
    } catch (const std::system_error&) {
    }
    auto dom = DominatorTree::compute(*graph);
    if (beside.joinable()) beside.join();
    else run_bfs();
    if (!dom) return dom.error();
    if (!*bfs) return bfs->error();
    stage("counting types");
    auto hist = build_type_histogram(*graph, &*dom, TypeHistogramOptions{}, owned->generations);
    if (!hist) return hist.error();
    std::sort(hist->begin(), hist->end(), [](const TypeStats& a, const TypeStats& b) { return a.type_id < b.type_id; });
    GcIndex out;
    AnalysisIndexAccess::keep_alive(*graph, owned);
    out.graph = std::move(graph).value();
    out.dominators = std::move(dom).value();
    out.edge_slots = std::move(slots).value();
    out.generations = owned->generations;
    out.type_stats = std::move(hist).value();
    out.has_dependent_handles = *has_dependent;
    out.root_entries = out.graph.roots().size() + out.graph.unresolved_roots().size();
    out.unreachable_objects = out.dominators.unreachable_count();
    out.unreachable_bytes = out.dominators.unreachable_bytes();
    auto block = rec.block_hash(gc_index);
    if (!block) return block.error();
    out.block_hash = *block;
    // The index's arrays outlive the tree that computed the parents: keep them with the table.
    auto storage = std::make_shared<ComputedStorage>();
    storage->objects = std::move(owned);
    const auto parents = (*bfs)->parents();
    storage->path_parents.assign(parents.begin(), parents.end());
    out.path_parents = storage->path_parents;
    out.storage = std::move(storage);
    return out;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory computing the analysis index");
  }
}

namespace {

// Buffered writes to FD after the header; each array's bytes (not the padding) are hashed on
// their own (format-spec.md §12.2: one checksum per array, so a reader checks only those it uses).
class IndexWriter {
 public:
  explicit IndexWriter(int fd) : fd_(fd), buffer_(size_t{1} << 20) {}
  uint64_t position() const noexcept { return position_; }
  // Pad to array WHICH's offset and start its checksum.
  bool begin(size_t which, uint64_t offset) {
    if (!pad_to(offset)) return false;
    current_ = which;
    XXH3_64bits_reset(&hash_);
    return true;
  }
  void end() { hashes_[current_] = XXH3_64bits_digest(&hash_); }
  const std::array<uint64_t, L::kArrayCount>& hashes() const noexcept { return hashes_; }
  bool write(const void* data, size_t n, bool hashed = true) {
    const auto* p = static_cast<const char*>(data);
    if (hashed) XXH3_64bits_update(&hash_, p, n);
    position_ += n;
    while (n > 0) {
      const size_t take = std::min(n, buffer_.size() - used_);
      std::memcpy(buffer_.data() + used_, p, take);
      used_ += take;
      p += take;
      n -= take;
      if (used_ == buffer_.size() && !flush()) return false;
    }
    return true;
  }
  bool pad_to(uint64_t offset) {
    static constexpr char kZeros[L::kAlign] = {};
    while (position_ < offset)
      if (!write(kZeros, static_cast<size_t>(std::min<uint64_t>(offset - position_, sizeof kZeros)), false)) return false;
    return true;
  }
  bool flush() {
    size_t done = 0;
    while (done < used_) {
      const ssize_t w = ::write(fd_, buffer_.data() + done, used_ - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      done += static_cast<size_t>(w);
    }
    used_ = 0;
    return true;
  }

 private:
  int fd_;
  std::vector<char> buffer_;
  size_t used_ = 0;
  uint64_t position_ = L::kHeaderSize;
  size_t current_ = 0;
  XXH3_state_t hash_{};
  std::array<uint64_t, L::kArrayCount> hashes_{};
};

template <typename T>
void put(unsigned char* at, T value) {
  std::memcpy(at, &value, sizeof value);  // little-endian host (checked by the caller)
}

bool write_payload(IndexWriter& w, const GcIndex& ix, const L::Placement& place, uint32_t flags) {
  const HeapGraph& g = ix.graph;
  auto array = [&](size_t which, const void* data, uint64_t bytes) {
    if (!w.begin(which, place.offset[which]) || (bytes != 0 && !w.write(data, static_cast<size_t>(bytes)))) return false;
    w.end();
    return true;
  };
  const auto fwd = AnalysisIndexAccess::forward(g);
  const auto rev = AnalysisIndexAccess::reverse(g);
  const bool wide = (flags & L::kFlagWideOffsets) != 0;
  if (!array(L::kAddresses, AnalysisIndexAccess::addresses(g), place.bytes[L::kAddresses]) ||
      !array(L::kSizes, g.sizes().data(), place.bytes[L::kSizes]) ||
      !array(L::kTypeIds, g.type_ids().data(), place.bytes[L::kTypeIds]) ||
      !array(L::kGenerations, ix.generations.data(), place.bytes[L::kGenerations]) ||
      !array(L::kForwardOffsets, wide ? static_cast<const void*>(fwd.wide.data()) : fwd.narrow.data(),
             place.bytes[L::kForwardOffsets]) ||
      !array(L::kForwardTargets, fwd.items.data(), place.bytes[L::kForwardTargets]) ||
      !array(L::kReverseOffsets, wide ? static_cast<const void*>(rev.wide.data()) : rev.narrow.data(),
             place.bytes[L::kReverseOffsets]) ||
      !array(L::kReverseSources, rev.items.data(), place.bytes[L::kReverseSources]) ||
      !array(L::kSlots, AnalysisIndexAccess::slots(ix.edge_slots).data(), place.bytes[L::kSlots]))
    return false;
  if (!w.begin(L::kRoots, place.offset[L::kRoots])) return false;
  for (const GraphRoot& r : g.roots()) {
    unsigned char rec[L::kRootRecord] = {};
    put(rec, r.node);
    put(rec + 4, r.root_index);
    put(rec + 8, r.root_id);
    rec[16] = static_cast<uint8_t>(r.kind);
    rec[17] = r.flags;
    if (!w.write(rec, sizeof rec)) return false;
  }
  w.end();
  if (!array(L::kUnresolved, g.unresolved_roots().data(), place.bytes[L::kUnresolved])) return false;
  if (!w.begin(L::kDependentEdges, place.offset[L::kDependentEdges])) return false;
  for (const auto& [primary, secondary] : AnalysisIndexAccess::dependent_edges(g)) {
    unsigned char rec[8];
    put(rec, primary);
    put(rec + 4, secondary);
    if (!w.write(rec, sizeof rec)) return false;
  }
  w.end();
  const DominatorTree& d = ix.dominators;
  if (!array(L::kPreorder, d.preorder().data(), place.bytes[L::kPreorder]) ||
      !array(L::kIdom, d.immediate_dominators().data(), place.bytes[L::kIdom]) ||
      !array(L::kRetained, d.retained_sizes().data(), place.bytes[L::kRetained]))
    return false;
  if (!w.begin(L::kTypes, place.offset[L::kTypes])) return false;
  for (const TypeStats& t : ix.type_stats) {
    unsigned char rec[L::kTypeRecord] = {};
    put(rec, t.type_id);
    put(rec + 8, t.count);
    put(rec + 16, t.shallow_bytes);
    put(rec + 24, t.retained_bytes);
    put(rec + 32, t.unreachable_count);
    for (size_t s = 0; s < kGenerationSlots; ++s) put(rec + 40 + 8 * s, t.generation_bytes[s]);
    if (!w.write(rec, sizeof rec)) return false;
  }
  w.end();
  if (!array(L::kPathParents, ix.path_parents.data(), place.bytes[L::kPathParents])) return false;
  return w.position() == place.file_size && w.flush();
}

}  // namespace

Status write_gc_index(const GcIndex& ix, const IndexIdentity& id, const std::string& path) {
  if constexpr (std::endian::native != std::endian::little)
    return make_error(ErrorCode::InvalidState, "analysis indexes are written on little-endian hosts only");
  const HeapGraph& g = ix.graph;
  if (!g.has_reverse() || ix.dominators.immediate_dominators().size() != g.node_count() ||
      ix.generations.size() != g.node_count() || ix.path_parents.size() != g.node_count())
    return make_error(ErrorCode::InvalidArgument, "the analysis index is incomplete");
  L::Counts c;
  c.nodes = g.node_count();
  c.edges = g.edge_count();
  c.roots = g.roots().size();
  c.unresolved = g.unresolved_roots().size();
  c.dependent = AnalysisIndexAccess::dependent_edges(g).size();
  c.preorder = ix.dominators.preorder().size();
  c.types = ix.type_stats.size();
  c.flags = (AnalysisIndexAccess::forward(g).wide.empty() ? 0u : L::kFlagWideOffsets) |
            (ix.has_dependent_handles ? L::kFlagDependent : 0u) | (ix.edge_slots.empty() ? 0u : L::kFlagSlots);
  const auto place = L::place(c);
  if (!place) return make_error(ErrorCode::LimitExceeded, "the analysis index would be too large");

  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot create the analysis index");
  bool ok = false;
  try {
    IndexWriter w(fd);
    static constexpr char kZeros[L::kHeaderSize] = {};
    ok = ::pwrite(fd, kZeros, sizeof kZeros, 0) == static_cast<ssize_t>(sizeof kZeros) &&
         ::lseek(fd, L::kHeaderSize, SEEK_SET) == static_cast<off_t>(L::kHeaderSize) && write_payload(w, ix, *place, c.flags);
    if (ok) {
      unsigned char h[L::kHeaderSize] = {};
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
      put(h + L::kOffReachableBytes, ix.dominators.reachable_bytes());
      put(h + L::kOffUnreachableBytes, ix.dominators.unreachable_bytes());
      const GraphBuildStats& s = g.stats();
      const uint64_t stats[7] = {s.references,     s.unresolved_references, s.null_roots,     s.unresolved_roots,
                                 s.interior_roots, s.dependent_handles,     s.dependent_edges};
      std::memcpy(h + L::kOffStats, stats, sizeof stats);
      put(h + L::kOffBlockHash, ix.block_hash);
      for (size_t a = 0; a < L::kArrayCount; ++a) put(h + L::hash_offset(a), w.hashes()[a]);
      put(h + L::kOffHeaderHash, static_cast<uint64_t>(XXH3_64bits(h, L::kOffHeaderHash)));
      ok = ::pwrite(fd, h, sizeof h, 0) == static_cast<ssize_t>(sizeof h);
    }
  } catch (const std::bad_alloc&) {
    ok = false;
    errno = ENOMEM;
  }
  const int saved = errno;
  ok = (::close(fd) == 0) && ok;
  if (ok && ::rename(tmp.c_str(), path.c_str()) == 0) return Status::ok();
  const int failed = ok ? errno : saved;
  ::unlink(tmp.c_str());
  errno = failed;
  return io_error("cannot write the analysis index");
}

Result<OpenedGcIndex> open_gc_index(const std::string& recording_path, const Recording& rec, size_t gc_index,
                                    bool write, const IndexProgress& progress, IndexParts parts) {
  auto id = identify_gc(recording_path, rec, gc_index);
  if (!id) return id.error();
  const std::string path = gc_index_path(recording_path, id->gc_number);
  OpenedGcIndex out;
  auto read = read_gc_index(path, *id, parts);
  if (read) {
    out.index = std::move(read).value();
    out.source = IndexSource::Read;
    return out;
  }
  if (read.error().code != ErrorCode::NotFound) out.rejected = read.error();
  auto computed = compute_gc_index(rec, gc_index, progress);
  if (!computed) return computed.error();
  out.index = std::move(computed).value();
  out.source = IndexSource::BuiltKept;
  if (write) {
    if (progress) progress("writing the index");
    const Status saved = write_gc_index(out.index, *id, path);
    if (saved) out.source = IndexSource::BuiltSaved;
    else out.write_error = saved.error();
  }
  return out;
}

}  // namespace gcsnap
