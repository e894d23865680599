// The build of an analysis index (format-spec.md §12), the one every entry point calls
// (detail::build_index): each array is written as soon as it is complete and freed once no
// later phase reads it, so that the peak is the largest phase, not the whole index
// (docs/performance.md, "The analysis index"). It writes to the index file, or to memory when
// the index is not saved (IndexFile::in_memory); a caller that wants the arrays reads them back.

#include <algorithm>
#include <cstddef>
#include <span>
#include <optional>
#include <utility>
#include <vector>

#include "analysis_index/index_access.hpp"
#include "analysis_index/index_build_steps.hpp"
#include "analysis_index/index_layout.hpp"
#include "analysis_index/index_largest_heads.hpp"
#include "analysis_index/index_nearest_instances.hpp"
#include "analysis_index/index_type_holders.hpp"
#include "analysis_index/index_write.hpp"
#include "huge_pages.hpp"
#include "gcsnap/analysis_index.hpp"

namespace gcsnap {

namespace {

using detail::AnalysisIndexAccess;
using detail::SideJob;
namespace L = index_layout;

Status too_large() { return make_error(ErrorCode::LimitExceeded, "the analysis index would be too large"); }

// One build written as it goes, in phases; each array is written by the phase after the one
// that completes it, on a second thread while the main one computes (SideJob):
//   1. decode + forward graph (decode_gc): node columns, forward CSR, slots.
//   2. write arrays 1-6 || shortest-path tree (BFS) and each type's nearest instances from its
//      order; then free the addresses and give back the recording's pages (nothing reads the
//      block again).
//   3. the dominators' DFS, the forward CSR's last reader, || coding the path parents (the last
//      array) in memory, the tree then freed; then the reverse CSR, built from
//      the forward one while its pages are given back, and the forward CSR freed; then write
//      arrays 7-12 || semi-NCA and retained sizes; then free the reverse CSR and the slots.
//      Built beside the BFS, the reverse CSR was whole beside the forward one and the DFS's
//      arrays: the build's peak (docs/performance.md, "The build's peak, phase by phase").
//   4. write arrays 13-15 || type histogram; then arrays 16-17.
//   5. the holder table (array 18, index_build_holders.cpp) from the forward graph read back
//      beside the type ids and the dominator tree, and the nearest instances after it; then
//      the header.
class FileBuild {
 public:
  FileBuild(const Recording& rec, size_t gc_pos, const IndexProgress& progress, const IndexIdentity& id,
            detail::IndexFile& file)
      : rec_(rec), gc_pos_(gc_pos), progress_(progress), id_(id), file_(file) {}

  // The GC's object count, or the write's failure as the inner status.
  Result<std::pair<uint64_t, Status>> run() {
    auto decoded = detail::decode_gc(rec_, gc_pos_, progress_);
    if (!decoded) return decoded.error();
    gc_ = std::move(decoded).value();
    const uint64_t objects = gc_.graph.node_count();
    counts_ = detail::graph_counts(gc_.graph, gc_.has_dependent, !gc_.slots.empty());
    place_ = L::place(counts_);
    if (!place_) return std::make_pair(objects, too_large());
    GCSNAP_RETURN_IF_ERROR(write_forward_beside_paths());
    GCSNAP_RETURN_IF_ERROR(write_reverse_beside_dominators());
    GCSNAP_RETURN_IF_ERROR(restore_columns());
    counts_.preorder = (*dom_)->preorder().size();
    place_ = L::place(counts_);  // the histogram's offset does not depend on its count
    if (!place_) return std::make_pair(objects, too_large());
    auto hist = write_tree_beside_histogram();
    if (!hist) return hist.error();
    if (progress_) progress_("writing the index");
    counts_.types = hist->size();
    place_ = L::place(counts_);  // the path parents follow the histogram (§12.3)
    if (!place_) return std::make_pair(objects, too_large());
    return std::make_pair(objects, write_last(*hist));
  }

 private:
  // 2. The BFS reads the forward graph, as the writer does.
  Status write_forward_beside_paths() {
    auto forward_job = [&]() noexcept {
      detail::write_forward_arrays(file_, *place_, gc_.graph, gc_.objects->generations);
      block_ = rec_.block_hash(gc_pos_);
    };
    {
      SideJob side;
      side.start(forward_job);
      ShortestPathTree::SearchOrder order;
      path_tree_ = ShortestPathTree::compute_in_order(gc_.graph, RetentionOptions{}, order);
      if (path_tree_) find_nearest(order);
      side.wait();
    }
    if (!path_tree_) return path_tree_.error();
    if (!block_) return block_.error();
    std::vector<uint64_t>().swap(gc_.objects->addresses);  // nothing after the graph looks objects up
    rec_.release_block_pages(gc_pos_);
    return Status::ok();
  }

  // The nearest instances are a cache of what `path --type` ranks: when they cannot be found
  // (out of memory, a type id too large), the index goes without them (flag bit 4 clear).
  void find_nearest(ShortestPathTree::SearchOrder& order) {
    auto found =
        detail::find_nearest_instances(gc_.graph.type_ids(), order.order, order.level_ends, detail::kNearestPerType);
    std::vector<NodeIndex>().swap(order.order);  // 4 bytes per object, given back now
    if (found) nearest_ = std::move(found).value();
  }

  // 3. The dominators: the DFS is the forward graph's last reader, the reverse graph's first
  // reader is the semidominators' pass.
  Status write_reverse_beside_dominators() {
    auto reverse_job = [&]() noexcept {
      const auto rev = AnalysisIndexAccess::reverse(gc_.graph);
      detail::write_reverse_arrays(file_, *place_, gc_.graph, gc_.slots,
                                   rev.wide.empty() ? detail::index_bytes(rev.narrow) : detail::index_bytes(rev.wide),
                                   detail::index_bytes(rev.items));
    };
    auto parents_job = [&]() noexcept { code_during_dfs(); };
    {
      SideJob side;
      SideJob coding;
      coding.start(parents_job);
      if (progress_) progress_("computing dominators");
      dom_.emplace(AnalysisIndexAccess::compute_dominators(gc_.graph, [&]() -> Status {
        coding.wait();
        path_tree_ = make_error(ErrorCode::InvalidState, "the shortest-path tree was written");
        give_back_columns();
        if (progress_) progress_("building the reverse graph");
        auto reverse = detail::make_reverse_csr(gc_.graph, true);
        AnalysisIndexAccess::release_forward(gc_.graph);
        if (!reverse) return reverse.error();
        AnalysisIndexAccess::adopt_reverse(gc_.graph, std::move(reverse).value());
        side.start(reverse_job);
        return Status::ok();
      }));
      side.wait();
    }
    if (!*dom_) return dom_->error();
    AnalysisIndexAccess::release_reverse(gc_.graph);
    gc_.slots = EdgeSlots();
    return Status::ok();
  }

  // During the DFS the path parents (the last array written) are coded for writing; they give
  // their memory back after it, over the reverse CSR's build and the semidominators.
  void code_during_dfs() noexcept {
    parents_ = detail::IndexFile::code_array(L::kPathParents, *place_, detail::index_bytes(path_tree_->parents()));
  }

  // The type ids and generations (read again only by the histogram) give their memory back
  // over the reverse CSR's build and the semidominators, and are read back from the file for
  // the histogram: they were written whole in phase 2 (no second coding of 5 B per object in
  // memory). Kept when they were not written (a failed write).
  void give_back_columns() noexcept {
    columns_given_back_ = file_.written(L::kTypeIds) && file_.written(L::kGenerations);
    if (!columns_given_back_) return;
    detail::discard_whole_pages(gc_.objects->type_ids.data(), gc_.objects->type_ids.size() * sizeof(uint32_t));
    detail::discard_whole_pages(gc_.objects->generations.data(), gc_.objects->generations.size() * sizeof(Generation));
  }

  // The type ids and generations, given back during the DFS, read back for the histogram.
  Status restore_columns() {
    if (!columns_given_back_) return Status::ok();
    auto bytes = [](auto& v) {
      const auto b = std::as_writable_bytes(std::span(v));
      return std::span<unsigned char>(reinterpret_cast<unsigned char*>(b.data()), b.size());
    };
    if (!file_.read_back(L::kTypeIds, *place_, bytes(gc_.objects->type_ids)) ||
        !file_.read_back(L::kGenerations, *place_, bytes(gc_.objects->generations)))
      return make_error(ErrorCode::InvalidState, "the type ids or generations did not read back");
    return Status::ok();
  }

  // 4. The histogram reads the tree the writer writes.
  Result<std::vector<TypeStats>> write_tree_beside_histogram() {
    const DominatorTree& tree = **dom_;
    auto tree_job = [&]() noexcept { detail::write_tree_arrays(file_, *place_, tree); };
    Result<std::vector<TypeStats>> hist = make_error(ErrorCode::InvalidState, "no histogram");
    {
      SideJob side;
      side.start(tree_job);
      if (progress_) progress_("counting types");
      hist = build_type_histogram(gc_.graph, &tree, TypeHistogramOptions{}, gc_.objects->generations);
      side.wait();
    }
    if (!hist) return hist.error();
    std::sort(hist->begin(), hist->end(), [](const TypeStats& a, const TypeStats& c) { return a.type_id < c.type_id; });
    return hist;
  }

  // The histogram, the path parents, the holder table and the header, which reads the graph's
  // stats, the tree's byte totals and the block hash.
  Status write_last(const std::vector<TypeStats>& hist) {
    file_.write_array(L::kTypes, *place_, detail::encode_type_stats(hist));
    file_.write_coded(L::kPathParents, *place_, parents_);
    write_holders(hist);
    AnalysisIndex ix;
    ix.graph = std::move(gc_.graph);
    ix.dominators = std::move(*dom_).value();
    ix.block_hash = *block_;
    return file_.finish(detail::index_header(ix, id_, counts_));
  }

  // 5. The holder table. It is a cache of what `dominators --by type` computes: when it cannot
  // be made (out of memory), the index goes without it (flag bit 3 clear, format-spec.md §12.2)
  // and the command computes it as it would without an index.
  void write_holders(const std::vector<TypeStats>& hist) {
    if (progress_) progress_("finding the holders of types");
    // The histogram was the generations' and sizes' last reader; the tree's is the holders'
    // first step, after which only its byte totals (for the header) are kept.
    std::vector<Generation>().swap(gc_.objects->generations);
    std::vector<uint64_t>().swap(gc_.objects->sizes);
    const uint64_t reachable = (*dom_)->reachable_bytes(), unreachable = (*dom_)->unreachable_bytes();
    auto release_tree = [&] {
      *dom_ = AnalysisIndexAccess::make_dominators({}, {}, {}, reachable, unreachable, nullptr);
    };
    // The heads need the tree, which the holders' search gives back; a cache of what
    // `dominators --top` ranks: without them (out of memory) flag bit 5 stays clear.
    auto heads = detail::find_largest_heads(gc_.graph, **dom_);
    auto rows = detail::build_type_holders(
        detail::HolderBuildInput{rec_, gc_pos_, gc_.graph, **dom_, hist, file_, *place_, parents_, release_tree});
    parents_ = detail::IndexFile::CodedArray();
    if (!rows && !nearest_ && !heads) return;
    // Without holders (h = 0) the table still carries the nearest instances.
    auto bytes = rows ? detail::encode_type_holders(*rows) : std::vector<unsigned char>();
    L::Counts with = counts_;
    with.holder_rows = rows ? rows->size() : 0;
    with.holder_text = bytes.size() - with.holder_rows * L::kHolderRecord;
    with.flags |= L::kFlagHolders;
    if (nearest_) {
      detail::encode_nearest_instances(*nearest_, bytes);
      with.nearest_rows = nearest_->rows.size();
      with.nearest_per_type = nearest_->per_type;
      with.flags |= L::kFlagNearest;
    }
    if (heads) {
      detail::encode_largest_heads(*heads, bytes);
      with.flags |= L::kFlagHeads;
    }
    const auto place = L::place(with);
    if (!place) return;
    counts_ = with;
    file_.write_array(L::kHolders, *place, bytes);
  }

  const Recording& rec_;
  size_t gc_pos_;
  const IndexProgress& progress_;
  const IndexIdentity& id_;
  detail::IndexFile& file_;
  detail::DecodedGc gc_;
  L::Counts counts_;
  std::optional<L::Placement> place_;
  Result<uint64_t> block_ = make_error(ErrorCode::InvalidState, "the block was not hashed");
  Result<ShortestPathTree> path_tree_ = make_error(ErrorCode::InvalidState, "no shortest-path tree");
  std::optional<Result<DominatorTree>> dom_;
  std::optional<NearestInstances> nearest_;
  detail::IndexFile::CodedArray parents_;
  bool columns_given_back_ = false;
};

}  // namespace

namespace detail {

Result<std::pair<uint64_t, Status>> build_index(const Recording& rec, size_t gc_pos, const IndexProgress& progress,
                                                const IndexIdentity& id, IndexFile& file) try {
  FileBuild build(rec, gc_pos, progress, id, file);
  return build.run();
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "out of memory computing the analysis index");
}

}  // namespace detail

Result<EnsuredAnalysisIndex> ensure_analysis_index(const std::string& recording_path, const Recording& rec,
                                                   size_t gc_pos, const IndexProgress& progress) {
  auto id = identify_gc(recording_path, rec, gc_pos);
  if (!id) return id.error();
  const std::string path = analysis_index_path(recording_path, id->gc_number);
  EnsuredAnalysisIndex out;
  {
    // The header and the directory only (format-spec.md §12.4 items 1-3): an up-to-date index
    // is told without decoding an array (~900 MB at 10 M objects). Damage inside an array is
    // found by check_analysis_index, or by the first command that decodes it, which rebuilds.
    // An index of an older minor version is valid, but lacks what this build adds (minor 1: the
    // holder table): `gcsnap index` brings it up to date; other commands use it as it is.
    auto valid = PointIndex::open(path, *id);
    if (valid && valid->minor_version() >= L::kMinor) {
      out.objects = valid->node_count();
      return out;
    }
    if (valid) out.rejected = make_error(ErrorCode::UnsupportedVersion, "analysis index of an older minor version");
    else if (valid.error().code != ErrorCode::NotFound) out.rejected = valid.error();
  }
  out.source = IndexSource::BuiltKept;
  // Built all the same when the file cannot be created: a bad recording is the error to report.
  auto file = detail::IndexFile::create(path);
  detail::IndexFile memory = detail::IndexFile::in_memory();
  auto built = detail::build_index(rec, gc_pos, progress, *id, file ? *file : memory);
  if (!built) return built.error();
  out.objects = built->first;
  if (!file) out.write_error = file.error();
  else if (built->second) out.source = IndexSource::BuiltSaved;
  else out.write_error = built->second.error();
  return out;
}

}  // namespace gcsnap
