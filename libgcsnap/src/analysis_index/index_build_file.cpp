// Building an analysis index only to write it (format-spec.md §12): each array is written as
// soon as it is complete and freed once no later phase reads it, so that the peak is the
// largest phase, not the whole index (docs/performance.md, "The analysis index"). The bytes are
// those of open_analysis_index's build: the same arrays from the same computations, in the
// same order.

#include <algorithm>
#include <cstddef>
#include <span>
#include <optional>
#include <utility>
#include <vector>

#include "analysis_index/index_access.hpp"
#include "analysis_index/index_build_steps.hpp"
#include "analysis_index/index_layout.hpp"
#include "analysis_index/index_write.hpp"
#include "huge_pages.hpp"
#include "gcsnap/analysis_index.hpp"

namespace gcsnap {

namespace {

using detail::AnalysisIndexAccess;
using detail::SideJob;
namespace L = index_layout;

// What a phase's side job left: the written array counts and the block's hash.
struct WriteOnlyBuild {
  detail::DecodedGc gc;
  L::Counts counts;
  Result<uint64_t> block = make_error(ErrorCode::InvalidState, "the block was not hashed");
};

Status too_large() { return make_error(ErrorCode::LimitExceeded, "the analysis index would be too large"); }

// Phases, each array written by the phase after the one that completes it, on a second thread
// while the main one computes (SideJob):
//   1. decode + forward graph (decode_gc): node columns, forward CSR, slots.
//   2. write arrays 1-6 || shortest-path tree (BFS); then free the addresses and give back
//      the recording's pages (nothing reads the block again).
//   3. the dominators' DFS, the forward CSR's last reader, || coding the path parents (the last
//      array) in memory, the tree then freed; then the reverse CSR, built from
//      the forward one while its pages are given back, and the forward CSR freed; then write
//      arrays 7-12 || semi-NCA and retained sizes; then free the reverse CSR and the slots.
//      Built beside the BFS, the reverse CSR was whole beside the forward one and the DFS's
//      arrays: the build's peak (docs/performance.md, "The build's peak, phase by phase").
//   4. write arrays 13-15 || type histogram; then arrays 16-17 and the header.
// Returns the GC's object count, or the write's failure as the inner status.
Result<std::pair<uint64_t, Status>> build_to_file(const Recording& rec, size_t gc_pos, const IndexProgress& progress,
                                                  const IndexIdentity& id, detail::IndexFile& file) try {
  auto decoded = detail::decode_gc(rec, gc_pos, progress);
  if (!decoded) return decoded.error();
  WriteOnlyBuild b{std::move(decoded).value(), {}, make_error(ErrorCode::InvalidState, "the block was not hashed")};
  detail::DecodedGc& gc = b.gc;
  const uint64_t objects = gc.graph.node_count();
  b.counts = detail::graph_counts(gc.graph, gc.has_dependent, !gc.slots.empty());
  auto place = L::place(b.counts);
  if (!place) return std::make_pair(objects, too_large());

  // 2. The BFS reads the forward graph, as the writer does.
  auto forward_job = [&]() noexcept {
    detail::write_forward_arrays(file, *place, gc.graph, gc.objects->generations);
    b.block = rec.block_hash(gc_pos);
  };
  Result<ShortestPathTree> path_tree = make_error(ErrorCode::InvalidState, "no shortest-path tree");
  {
    SideJob side;
    side.start(forward_job);
    path_tree = ShortestPathTree::compute(gc.graph, RetentionOptions{});
    side.wait();
  }
  if (!path_tree) return path_tree.error();
  if (!b.block) return b.block.error();
  std::vector<uint64_t>().swap(gc.objects->addresses);  // nothing after the graph looks objects up
  rec.release_block_pages(gc_pos);

  // 3. The dominators: the DFS is the forward graph's last reader, the reverse graph's first
  // reader is the semidominators' pass.
  auto reverse_job = [&]() noexcept {
    const auto rev = AnalysisIndexAccess::reverse(gc.graph);
    detail::write_reverse_arrays(file, *place, gc.graph, gc.slots,
                                 rev.wide.empty() ? detail::index_bytes(rev.narrow) : detail::index_bytes(rev.wide),
                                 detail::index_bytes(rev.items));
  };
  // During the DFS the path parents (the last array written) are coded for writing, and the
  // type ids and generations (read again only by the histogram) for decoding back; all three
  // give their memory back after it, over the reverse CSR's build and the semidominators.
  detail::IndexFile::CodedArray parents, type_ids, generations;
  auto parents_job = [&]() noexcept {
    parents = detail::IndexFile::code_array(L::kPathParents, *place, detail::index_bytes(path_tree->parents()));
    type_ids = detail::IndexFile::code_array(L::kTypeIds, *place, detail::index_bytes(gc.graph.type_ids()));
    generations = detail::IndexFile::code_array(L::kGenerations, *place,
                                                detail::index_bytes(std::span<const Generation>(gc.objects->generations)));
  };
  std::optional<Result<DominatorTree>> dom;
  {
    SideJob side;
    SideJob coding;
    coding.start(parents_job);
    if (progress) progress("computing dominators");
    dom.emplace(AnalysisIndexAccess::compute_dominators(gc.graph, [&]() -> Status {
      coding.wait();
      path_tree = make_error(ErrorCode::InvalidState, "the shortest-path tree was written");
      if (type_ids.error == 0 && generations.error == 0) {
        detail::discard_whole_pages(gc.objects->type_ids.data(), gc.objects->type_ids.size() * sizeof(uint32_t));
        detail::discard_whole_pages(gc.objects->generations.data(), gc.objects->generations.size() * sizeof(Generation));
      }
      if (progress) progress("building the reverse graph");
      auto reverse = detail::make_reverse_csr(gc.graph, true);
      AnalysisIndexAccess::release_forward(gc.graph);
      if (!reverse) return reverse.error();
      AnalysisIndexAccess::adopt_reverse(gc.graph, std::move(reverse).value());
      side.start(reverse_job);
      return Status::ok();
    }));
    side.wait();
  }
  if (!*dom) return dom->error();
  AnalysisIndexAccess::release_reverse(gc.graph);
  gc.slots = EdgeSlots();

  if (type_ids.error == 0 && generations.error == 0) {
    auto bytes = [](auto& v) { return std::as_writable_bytes(std::span(v)); };
    auto restore = [&](size_t which, const detail::IndexFile::CodedArray& coded, std::span<std::byte> out) {
      return detail::IndexFile::decode_coded(which, *place, coded,
                                             {reinterpret_cast<unsigned char*>(out.data()), out.size()});
    };
    if (!restore(L::kTypeIds, type_ids, bytes(gc.objects->type_ids)) ||
        !restore(L::kGenerations, generations, bytes(gc.objects->generations)))
      return make_error(ErrorCode::InvalidState, "the type ids or generations did not decode back");
  }
  type_ids = generations = detail::IndexFile::CodedArray();

  // 4. The histogram reads the tree the writer writes.
  b.counts.preorder = (*dom)->preorder().size();
  place = L::place(b.counts);  // the histogram's offset does not depend on its count
  if (!place) return std::make_pair(objects, too_large());
  const DominatorTree& tree = **dom;
  auto tree_job = [&]() noexcept { detail::write_tree_arrays(file, *place, tree); };
  Result<std::vector<TypeStats>> hist = make_error(ErrorCode::InvalidState, "no histogram");
  {
    SideJob side;
    side.start(tree_job);
    if (progress) progress("counting types");
    hist = build_type_histogram(gc.graph, &tree, TypeHistogramOptions{}, gc.objects->generations);
    side.wait();
  }
  if (!hist) return hist.error();
  std::sort(hist->begin(), hist->end(), [](const TypeStats& a, const TypeStats& c) { return a.type_id < c.type_id; });

  if (progress) progress("writing the index");
  b.counts.types = hist->size();
  place = L::place(b.counts);  // the path parents follow the histogram (§12.3)
  if (!place) return std::make_pair(objects, too_large());
  file.write_array(L::kTypes, *place, detail::encode_type_stats(*hist));
  file.write_coded(L::kPathParents, *place, parents);
  // The header reads the graph's stats, the tree's byte totals and the block hash.
  AnalysisIndex ix;
  ix.graph = std::move(gc.graph);
  ix.dominators = std::move(*dom).value();
  ix.block_hash = *b.block;
  return std::make_pair(objects, file.finish(detail::index_header(ix, id, b.counts)));
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "out of memory computing the analysis index");
}

}  // namespace

Result<EnsuredAnalysisIndex> ensure_analysis_index(const std::string& recording_path, const Recording& rec,
                                                   size_t gc_pos, const IndexProgress& progress) {
  auto id = identify_gc(recording_path, rec, gc_pos);
  if (!id) return id.error();
  const std::string path = analysis_index_path(recording_path, id->gc_number);
  EnsuredAnalysisIndex out;
  {
    auto read = read_analysis_index(path, *id);
    if (read) {
      out.objects = read->graph.node_count();
      return out;
    }
    if (read.error().code != ErrorCode::NotFound) out.rejected = read.error();
  }
  out.source = IndexSource::BuiltKept;
  auto file = detail::IndexFile::create(path);
  if (!file) {
    // Computed all the same, as open_analysis_index does: a bad recording is the error to report.
    auto computed = compute_analysis_index(rec, gc_pos, progress);
    if (!computed) return computed.error();
    out.objects = computed->graph.node_count();
    out.write_error = file.error();
    return out;
  }
  auto built = build_to_file(rec, gc_pos, progress, *id, *file);
  if (!built) return built.error();
  out.objects = built->first;
  if (built->second) out.source = IndexSource::BuiltSaved;
  else out.write_error = built->second.error();
  return out;
}

}  // namespace gcsnap
