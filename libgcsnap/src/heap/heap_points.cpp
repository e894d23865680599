#include "gcsnap/heap_points.hpp"

#include <algorithm>
#include <new>
#include <utility>

namespace gcsnap {

struct HeapPoints::State {
  const Recording* rec = nullptr;
  size_t gc_pos = 0;
  std::optional<PointIndex> index;  // reset for good when a piece turns out damaged
  bool use_recording = true;        // false with IndexUse::OnlyExisting
  // Per root-table row: the node the index's graph resolved it to, or kNoNode (read once).
  std::optional<std::vector<NodeIndex>> resolved;
  // The recording's answers, decoded at the first query that needs them.
  std::optional<ObjectTable> objects;
  std::optional<bool> has_dependent;
  std::optional<HeapGraph> graph;  // over `objects`, for is_reachable
};

namespace {

// The analysis index of GC_POS for point queries: its header valid for the GC as it is now and
// its root count the GC's; nullopt otherwise.
std::optional<PointIndex> open_point_index(const std::string& recording_path, const Recording& rec, size_t gc_pos) {
  const GcEntry& entry = rec.gcs()[gc_pos];
  if (!entry.has_heap_walk()) return std::nullopt;
  auto id = identify_gc(recording_path, rec, gc_pos);
  if (!id) return std::nullopt;
  auto index = PointIndex::open(analysis_index_path(recording_path, id->gc_number), *id);
  if (!index || index->root_entries() != entry.root_count) return std::nullopt;
  return std::move(index).value();
}

// R's value; with an error (a damaged piece) the index is not used any more and nullopt says so.
template <typename T>
std::optional<T> from_index(std::optional<PointIndex>& index, Result<T>&& r) {
  if (r) return std::move(r).value();
  index.reset();
  return std::nullopt;
}

Status decode_objects(HeapPoints::State& s) try {
  if (s.objects) return {};
  if (!s.use_recording) return make_error(ErrorCode::InvalidState, "the analysis index cannot answer");
  auto read = s.rec->read_objects(s.gc_pos);
  if (!read) return read.error();
  s.objects = std::move(read).value();
  return {};
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "decoding a heap walk for point queries");
}

// The decoded graph of the GC (with its dependent-handle edges when it has them), for a search.
Status decode_graph(HeapPoints::State& s, bool has_dependent) try {
  if (s.graph) return {};
  GCSNAP_RETURN_IF_ERROR(decode_objects(s));
  auto roots = s.rec->read_roots(s.gc_pos);
  if (!roots) return roots.error();
  DependentHandleTable dependent;
  if (has_dependent) {
    auto read = s.rec->read_dependent_handles(s.gc_pos);
    if (!read) return read.error();
    dependent = std::move(read).value();
  }
  auto built = HeapGraph::build(*s.objects, *roots, has_dependent ? &dependent : nullptr);
  if (!built) return built.error();
  s.graph = std::move(built).value();
  return {};
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "building a heap graph for point queries");
}

// The rows' types from the index, each root's node or object looked up in the pieces that hold
// it (in node order, so a piece is decoded once while it stays cached); false when a piece is
// damaged.
bool root_types_from_index(HeapPoints::State& s, const RootTable& roots, std::span<const size_t> rows,
                           std::vector<std::optional<uint32_t>>& out) {
  if (!s.resolved) {
    auto graph_roots = s.index->roots();
    if (!graph_roots) return false;
    s.resolved.emplace(roots.size(), kNoNode);
    for (const GraphRoot& r : graph_roots->first)
      if (r.root_index < s.resolved->size()) (*s.resolved)[r.root_index] = r.node;
  }
  std::vector<std::pair<NodeIndex, size_t>> nodes;  // (node, position in ROWS)
  for (size_t k = 0; k < rows.size(); ++k) {
    if (roots.object_ids[rows[k]] == 0) continue;  // a null root has no object, whatever lives at 0
    if ((*s.resolved)[rows[k]] != kNoNode) {
      nodes.emplace_back((*s.resolved)[rows[k]], k);
      continue;
    }
    auto found = s.index->find_object(roots.object_ids[rows[k]]);
    if (!found) return false;
    if (*found) out[k] = (*found)->type_id;
  }
  std::sort(nodes.begin(), nodes.end());
  for (const auto& [node, k] : nodes) {
    auto type = s.index->type_id(node);
    if (!type) return false;
    out[k] = *type;
  }
  return true;
}

}  // namespace

HeapPoints::HeapPoints(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
HeapPoints::~HeapPoints() = default;

Result<std::unique_ptr<HeapPoints>> HeapPoints::open(const std::string& recording_path, const Recording& rec,
                                                     size_t gc_pos, IndexUse use) try {
  if (gc_pos >= rec.gcs().size()) return make_error(ErrorCode::NotFound, "no such GC");
  if (use == IndexUse::Build) return make_error(ErrorCode::InvalidArgument, "point queries never build an index");
  auto state = std::make_unique<State>();
  state->rec = &rec;
  state->gc_pos = gc_pos;
  state->use_recording = use != IndexUse::OnlyExisting;
  if (use != IndexUse::Ignore) state->index = open_point_index(recording_path, rec, gc_pos);
  if (use == IndexUse::OnlyExisting && !state->index) return std::unique_ptr<HeapPoints>();
  return std::unique_ptr<HeapPoints>(new HeapPoints(std::move(state)));
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "opening a GC for point queries");
}

bool HeapPoints::has_index() const noexcept { return state_->index.has_value(); }

Result<std::optional<IndexedObject>> HeapPoints::find_object(uint64_t address) {
  State& s = *state_;
  if (s.index) {
    auto found = s.index->find_object(address);
    if (found || !s.use_recording) return found;
    s.index.reset();
  }
  GCSNAP_RETURN_IF_ERROR(decode_objects(s));
  const auto row = s.objects->find_containing(address);
  if (!row) return std::optional<IndexedObject>();
  IndexedObject o;
  o.node = static_cast<NodeIndex>(*row);
  o.address = s.objects->addresses[*row];
  o.size = s.objects->sizes[*row];
  o.type_id = s.objects->type_ids[*row];
  o.generation = s.objects->generations[*row];
  return std::optional<IndexedObject>(o);
}

Result<bool> HeapPoints::has_dependent_handles() {
  State& s = *state_;
  if (s.index) return s.index->has_dependent_handles();
  if (!s.has_dependent) {
    if (!s.use_recording) return make_error(ErrorCode::InvalidState, "the analysis index cannot answer");
    auto has = s.rec->has_dependent_handle_section(s.gc_pos);
    if (!has) return has.error();
    s.has_dependent = *has;
  }
  return *s.has_dependent;
}

Result<bool> HeapPoints::is_reachable(NodeIndex node) {
  State& s = *state_;
  if (s.index) {
    auto object = s.index->object(node);
    if (object) return object->reachable;
    if (!s.use_recording) return object.error();
    s.index.reset();
  }
  auto has_dependent = has_dependent_handles();
  if (!has_dependent) return has_dependent.error();
  GCSNAP_RETURN_IF_ERROR(decode_graph(s, *has_dependent));
  if (node >= s.graph->node_count()) return make_error(ErrorCode::InvalidArgument, "no such object");
  auto tree = ShortestPathTree::compute(*s.graph, RetentionOptions{}, kNoNode, node);
  if (!tree) return tree.error();
  return tree->is_reached(node);
}

Result<std::vector<std::optional<uint32_t>>> HeapPoints::root_object_types(const RootTable& roots,
                                                                           std::span<const size_t> rows) try {
  State& s = *state_;
  std::vector<std::optional<uint32_t>> out(rows.size());
  if (!s.rec->gcs()[s.gc_pos].has_heap_walk()) return out;
  if (s.index) {
    if (root_types_from_index(s, roots, rows, out)) return out;
    s.index.reset();  // a damaged piece: the recording answers (decode_objects says when it may not)
    out.assign(rows.size(), std::nullopt);
  }
  GCSNAP_RETURN_IF_ERROR(decode_objects(s));
  std::vector<size_t> search;  // positions in ROWS
  std::vector<uint64_t> addresses;
  for (size_t k = 0; k < rows.size(); ++k) {
    if (roots.object_ids[rows[k]] == 0) continue;  // a null root has no object, whatever lives at 0
    search.push_back(k);
    addresses.push_back(roots.object_ids[rows[k]]);
  }
  // One pass: the rows come in address order.
  const auto found = find_containing_each(s.objects->addresses, s.objects->sizes, addresses);
  for (size_t j = 0; j < search.size(); ++j)
    if (found[j]) out[search[j]] = s.objects->type_ids[*found[j]];
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "looking up the roots' objects");
}

std::optional<std::vector<uint32_t>> HeapPoints::type_ids() {
  if (!state_->index) return std::nullopt;
  return from_index(state_->index, state_->index->type_ids());
}

std::optional<RetentionResult> HeapPoints::find_retention_path(NodeIndex target, bool include_weak) {
  if (!state_->index) return std::nullopt;
  return from_index(state_->index, state_->index->find_retention_path(target, include_weak));
}

std::optional<std::vector<NodeIndex>> HeapPoints::nodes_of_types(std::span<const uint32_t> types) {
  if (!state_->index) return std::nullopt;
  return from_index(state_->index, state_->index->nodes_of_types(types));
}

std::optional<IndexedTreePaths> HeapPoints::nearest_tree_paths(std::span<const NodeIndex> targets, size_t n) {
  if (!state_->index) return std::nullopt;
  return from_index(state_->index, state_->index->nearest_tree_paths(targets, n));
}

std::optional<IndexedTreePaths> HeapPoints::tree_paths_of(std::span<const NearestInstance> chosen) {
  if (!state_->index) return std::nullopt;
  return from_index(state_->index, state_->index->tree_paths_of(chosen));
}

std::optional<NearestInstances> HeapPoints::nearest_instances(std::span<const TypeStats> histogram) {
  if (!state_->index) return std::nullopt;
  auto nearest = from_index(state_->index, state_->index->nearest_instances(histogram));
  if (!nearest || !*nearest) return std::nullopt;
  return std::move(**nearest);
}

std::optional<PathSubgraph> HeapPoints::path_subgraph(const std::vector<RetentionPath>& paths) {
  if (!state_->index) return std::nullopt;
  return from_index(state_->index, state_->index->path_subgraph(paths));
}

std::optional<std::vector<IndexedRetainer>> HeapPoints::top_retainers(size_t n, std::span<const uint32_t> types,
                                                                      bool fold) {
  if (!state_->index) return std::nullopt;
  return from_index(state_->index, state_->index->top_retainers(n, types, fold));
}

std::optional<std::vector<TypeStats>> HeapPoints::type_stats() {
  if (!state_->index) return std::nullopt;
  return from_index(state_->index, state_->index->type_stats());
}

std::optional<std::vector<IndexedTypeHolder>> HeapPoints::type_holders(std::span<const TypeStats> histogram) {
  if (!state_->index) return std::nullopt;
  auto held = from_index(state_->index, state_->index->type_holders(histogram));
  if (!held || !*held) return std::nullopt;
  return std::move(**held);
}

std::optional<ReachableCounts> HeapPoints::reachable_counts() const {
  if (!state_->index) return std::nullopt;
  const PointIndex& ix = *state_->index;
  return ReachableCounts{ix.reachable_count(), ix.reachable_bytes(), ix.node_count() - ix.reachable_count(),
                         ix.unreachable_bytes()};
}

}  // namespace gcsnap
