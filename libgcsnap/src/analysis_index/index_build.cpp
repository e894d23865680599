// The analysis index: compute it from a recording, write it (format-spec.md §12), and the
// open-or-build policy the commands share.

#include <algorithm>
#include <cerrno>
#include <future>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "analysis/heap_graph_storage.hpp"
#include "gcsnap/analysis_index.hpp"
#include "analysis_index/index_access.hpp"
#include "analysis_index/index_build_steps.hpp"
#include "analysis_index/index_layout.hpp"
#include "analysis_index/index_write.hpp"
#include "platform/file_io.hpp"

namespace gcsnap {

using detail::AnalysisIndexAccess;
namespace L = index_layout;

std::string analysis_index_path(const std::string& recording_path, uint64_t gc_number) {
  return recording_path + "." + std::to_string(gc_number) + ".gcidx";
}

namespace {

Status io_error(const char* detail) {
  Error e{ErrorCode::IoError, 0, detail, errno};
  return Status(e);
}

bool pread_all(platform::FileHandle fd, void* out, size_t n, uint64_t at) {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    const int64_t got = platform::read_at(fd, p, n, at);
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
    at += static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace

Result<IndexIdentity> identify_gc(const std::string& recording_path, const Recording& rec, size_t gc_pos) {
  if (gc_pos >= rec.gcs().size()) return make_error(ErrorCode::NotFound, "no such GC in the recording");
  const GcEntry& entry = rec.gcs()[gc_pos];
  const platform::FileHandle fd = platform::open_file(recording_path, platform::OpenMode::Read);
  if (fd == platform::kNoFile) return io_error("cannot open the recording");
  platform::FileInfo st;
  IndexIdentity id;
  bool ok = platform::file_info(fd, st);
  if (ok) {
    id.file_size = st.size;
    id.mtime_ns = st.mtime_ns;
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
  platform::close_file(fd);
  errno = saved;
  if (!ok) return io_error("cannot read the recording to identify its GC block");
  return id;
}

namespace detail {

IndexBytes offset_bytes(const detail::CsrOffsets& offsets) {
  if (!offsets.wide().empty()) return index_bytes(std::span<const uint64_t>(offsets.wide()));
  return index_bytes(std::span<const uint32_t>(offsets.narrow()));
}

Result<DecodedGc> decode_gc(const Recording& rec, size_t gc_pos, const IndexProgress& progress) {
  if (progress) progress("decoding objects");
  auto objects = rec.read_objects(gc_pos, ObjectReadOptions{true});
  if (!objects) return objects.error();
  DecodedGc out;
  out.objects = std::make_shared<ObjectTable>(std::move(objects).value());
  rec.release_block_pages(gc_pos);  // decoded: what reads the block again reads the file again
  auto roots = rec.read_roots(gc_pos);
  if (!roots) return roots.error();
  auto has_dependent = rec.has_dependent_handle_section(gc_pos);
  if (!has_dependent) return has_dependent.error();
  auto dependent = rec.read_dependent_handles(gc_pos);
  if (!dependent) return dependent.error();
  out.has_dependent = *has_dependent;
  if (progress) progress("building the graph");
  // The edge slots are matched to the graph through the targets when a reference is unresolved:
  // without slots nothing reads the targets after the graph, so their pages go as it is built.
  const DependentHandleTable* pairs = out.has_dependent ? &*dependent : nullptr;
  auto graph = out.objects->reference_slots.empty()
                   ? AnalysisIndexAccess::build_graph_discarding(*out.objects, *roots, pairs)
                   : HeapGraph::build(*out.objects, *roots, pairs);
  if (!graph) return graph.error();
  auto slots = EdgeSlots::build(*out.objects, *graph);
  if (!slots) return slots.error();
  out.objects->release_references();
  out.graph = std::move(graph).value();
  out.slots = std::move(slots).value();
  return out;
}

}  // namespace detail

namespace {

using detail::DecodedGc;
using detail::SideJob;
using detail::offset_bytes;

// Where a build writes its index: PATH for IDENTITY.
struct IndexTarget {
  const IndexIdentity& identity;
  const std::string& path;
};

struct BuiltIndex {
  AnalysisIndex index;
  Status written;  // of the write to the target, if there was one
};

// The index file of TARGET at PLACE, or none (no target, or WRITTEN says why not).
std::optional<detail::IndexFile> create_index_file(const IndexTarget* target,
                                                   const std::optional<L::Placement>& place, Status& written) {
  if (!target) return std::nullopt;
  if (!place) {
    written = make_error(ErrorCode::LimitExceeded, "the analysis index would be too large");
    return std::nullopt;
  }
  auto created = detail::IndexFile::create(target->path);
  if (!created) {
    written = created.error();
    return std::nullopt;
  }
  return std::move(created).value();
}

// What a computed AnalysisIndex's spans point into. Of the tree only parents() is used (its graph
// pointer names the graph before it moved into the index).
struct ComputedStorage {
  std::shared_ptr<const ObjectTable> objects;  // generations (and the graph's columns)
  ShortestPathTree path_tree;
};

AnalysisIndex assemble_index(DecodedGc&& gc, DominatorTree&& dom, ShortestPathTree&& path_tree,
                       std::vector<TypeStats>&& types, uint64_t block_hash) {
  AnalysisIndex ix;
  AnalysisIndexAccess::keep_alive(gc.graph, gc.objects);
  ix.graph = std::move(gc.graph);
  ix.dominators = std::move(dom);
  ix.edge_slots = std::move(gc.slots);
  ix.generations = gc.objects->generations;
  ix.type_stats = std::move(types);
  ix.has_dependent_handles = gc.has_dependent;
  ix.root_entries = ix.graph.roots().size() + ix.graph.unresolved_roots().size();
  ix.unreachable_objects = ix.dominators.unreachable_count();
  ix.unreachable_bytes = ix.dominators.unreachable_bytes();
  ix.block_hash = block_hash;
  auto storage = std::make_shared<ComputedStorage>();
  storage->objects = std::move(gc.objects);
  storage->path_tree = std::move(path_tree);  // a move keeps the parents' buffer
  ix.path_parents = storage->path_tree.parents();
  ix.storage = std::move(storage);
  return ix;
}

// Compute GC_INDEX's index and, with TARGET, write it. The dominator tree is most of the time
// (docs/performance.md, "The analysis index"), and its DFS reads only the successors: a second thread
// computes the shortest-path tree (a BFS over the successors) and the reverse CSR meanwhile,
// hashes the block and writes the arrays that exist by then (node columns, both graphs, slots,
// roots: 3/4 of the file); it writes the dominator tree's arrays while the histogram is
// counted. So the build costs the dominators and the histogram, not also the reverse CSR, the
// BFS and the write. The second thread reads only the forward graph, roots and columns, which
// the main one never changes (it only adopts the reverse CSR). Peak memory is not raised: the
// reverse CSR exists before the semidominators' arrays either way, and the arrays are written
// from where they are, with no copy. Failing to write only sets `written`; the index is
// computed all the same.
Result<BuiltIndex> build_analysis_index(const Recording& rec, size_t gc_pos, const IndexProgress& progress,
                                  const IndexTarget* target) try {
  auto decoded = detail::decode_gc(rec, gc_pos, progress);
  if (!decoded) return decoded.error();
  DecodedGc& gc = *decoded;
  BuiltIndex out;
  L::Counts counts = detail::graph_counts(gc.graph, gc.has_dependent, !gc.slots.empty());
  // The arrays before the preorder are placed by the graph's counts alone (§12.3 order).
  auto place = L::place(counts);
  std::optional<detail::IndexFile> file = create_index_file(target, place, out.written);

  std::promise<Result<detail::ReverseCsr>> reverse_promise;
  std::future<Result<detail::ReverseCsr>> reverse_future = reverse_promise.get_future();
  Result<uint64_t> block = make_error(ErrorCode::InvalidState, "the block was not hashed");
  Result<ShortestPathTree> path_tree = make_error(ErrorCode::InvalidState, "no shortest-path tree");
  auto graph_job = [&]() noexcept {
    // The BFS first: its queue (up to 64 MB) then lives beside the DFS's arrays, not beside the
    // semidominators' larger ones (after the reverse CSR it raised peak RSS by 12 MB).
    path_tree = ShortestPathTree::compute(gc.graph, RetentionOptions{});
    auto reverse = detail::make_reverse_csr(gc.graph, false);
    // Taken before the hand-over: moving the vectors into the graph keeps their buffers.
    std::optional<std::pair<detail::IndexBytes, detail::IndexBytes>> bytes;
    if (reverse)
      bytes.emplace(offset_bytes(reverse->offsets), detail::index_bytes(std::span<const NodeIndex>(reverse->sources)));
    reverse_promise.set_value(std::move(reverse));
    block = rec.block_hash(gc_pos);
    if (file && bytes)
      detail::write_graph_arrays(*file, *place, gc.graph, gc.objects->generations, gc.slots, bytes->first,
                                 bytes->second);
  };
  if (progress) progress("building the reverse graph");
  SideJob graph_side;
  graph_side.start(graph_job);
  if (progress) progress("computing dominators");
  auto dom = AnalysisIndexAccess::compute_dominators(gc.graph, [&]() -> Status {
    auto reverse = reverse_future.get();
    if (!reverse) return reverse.error();
    AnalysisIndexAccess::adopt_reverse(gc.graph, std::move(reverse).value());
    return Status::ok();
  });
  if (!dom) return dom.error();
  graph_side.wait();
  if (!block) return block.error();
  if (!path_tree) return path_tree.error();

  counts.preorder = dom->preorder().size();
  place = L::place(counts);  // the histogram's offset does not depend on its count
  auto tree_job = [&]() noexcept {
    if (file && place) detail::write_tree_arrays(*file, *place, *dom);
  };
  SideJob tree_side;
  tree_side.start(tree_job);
  if (progress) progress("counting types");
  auto hist = build_type_histogram(gc.graph, &*dom, TypeHistogramOptions{}, gc.objects->generations);
  if (!hist) return hist.error();
  std::sort(hist->begin(), hist->end(), [](const TypeStats& a, const TypeStats& b) { return a.type_id < b.type_id; });
  tree_side.wait();

  out.index = assemble_index(std::move(gc), std::move(dom).value(), std::move(path_tree).value(),
                             std::move(hist).value(), *block);
  if (file) {
    if (progress) progress("writing the index");
    counts.types = out.index.type_stats.size();
    place = L::place(counts);  // the path parents follow the histogram (§12.3)
    if (!place) {
      out.written = make_error(ErrorCode::LimitExceeded, "the analysis index would be too large");
    } else {
      file->write_array(L::kTypes, *place, detail::encode_type_stats(out.index.type_stats));
      file->write_array(L::kPathParents, *place, detail::index_bytes(out.index.path_parents));
      out.written = file->finish(detail::index_header(out.index, target->identity, counts));
    }
  }
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "out of memory computing the analysis index");
}

}  // namespace

Result<AnalysisIndex> compute_analysis_index(const Recording& rec, size_t gc_pos, const IndexProgress& progress) {
  auto built = build_analysis_index(rec, gc_pos, progress, nullptr);
  if (!built) return built.error();
  return std::move(built->index);
}

Result<OpenedAnalysisIndex> open_analysis_index(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                                    bool write, const IndexProgress& progress, IndexParts parts) {
  auto id = identify_gc(recording_path, rec, gc_pos);
  if (!id) return id.error();
  const std::string path = analysis_index_path(recording_path, id->gc_number);
  OpenedAnalysisIndex out;
  auto read = read_analysis_index(path, *id, parts);
  if (read) {
    out.index = std::move(read).value();
    out.source = IndexSource::Read;
    return out;
  }
  if (read.error().code != ErrorCode::NotFound) out.rejected = read.error();
  const IndexTarget target{*id, path};
  auto built = build_analysis_index(rec, gc_pos, progress, write ? &target : nullptr);
  if (!built) return built.error();
  out.index = std::move(built->index);
  out.source = IndexSource::BuiltKept;
  if (write) {
    if (built->written) out.source = IndexSource::BuiltSaved;
    else out.write_error = built->written.error();
  }
  return out;
}

}  // namespace gcsnap
