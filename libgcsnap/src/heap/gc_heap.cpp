#include "gcsnap/gc_heap.hpp"

#include <algorithm>
#include <new>

namespace gcsnap {

namespace {

// The parts of the analysis index that answer NEEDS (format-spec.md §12.4).
IndexParts index_parts_for(HeapNeeds needs) {
  IndexParts parts = 0;
  if (needs & kNeedObjects) parts |= kIndexObjects;
  if (needs & kNeedTypeIds) parts |= kIndexTypeIds;
  if (needs & kNeedSuccessors) parts |= kIndexForward;
  if (needs & kNeedPredecessors) parts |= kIndexReverse;
  if (needs & kNeedEdgeSlots) parts |= kIndexSlots;
  if (needs & kNeedDominators) parts |= kIndexDominators;
  if (needs & kNeedHistogram) parts |= kIndexTypes;
  if (needs & kNeedPathTree) parts |= kIndexPathTree;
  if (needs & kNeedTypeHolders) parts |= kIndexHolders;
  // The index's trees are over strong roots: over every root they are computed from the graph.
  if (needs & kNeedWeakRoots) parts |= kIndexObjects | kIndexForward | kIndexReverse;
  return parts;
}

// The GC's statics and delegate targets into HEAP, for field names (kNeedStatics):
// read from the recording whether the graph came from the index or was decoded.
Status read_statics_and_delegates(const Recording& rec, size_t gc_pos, GcHeap& heap) {
  auto read_statics = rec.read_static_slots(gc_pos, heap.static_names);
  if (!read_statics) return read_statics.error();
  heap.statics = std::move(read_statics).value();
  auto read_delegates = rec.read_delegate_targets(gc_pos);
  if (!read_delegates) return read_delegates.error();
  heap.delegates = std::move(read_delegates).value();
  return {};
}

}  // namespace

std::optional<AnalysisIndex> find_analysis_index(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                                     IndexParts parts) {
  if (gc_pos >= rec.gcs().size()) return std::nullopt;
  const GcEntry& entry = rec.gcs()[gc_pos];
  if (!entry.has_heap_walk()) return std::nullopt;
  auto id = identify_gc(recording_path, rec, gc_pos);
  if (!id) return std::nullopt;
  auto read = read_analysis_index(analysis_index_path(recording_path, id->gc_number), *id, parts);
  if (!read) return std::nullopt;
  // Its root positions must refer to this GC's root table (a forged index is not used).
  if (read->root_entries != entry.root_count) return std::nullopt;
  return std::move(read).value();
}

bool index_vouches_for_block(const AnalysisIndex& index, const Recording& rec, size_t gc_pos) {
  if (index.block_hash == 0) return false;
  auto now = rec.block_hash(gc_pos);
  return now && *now == index.block_hash;
}

Result<std::unique_ptr<GcHeap>> GcHeap::open(const std::string& recording_path, const Recording& rec,
                                             size_t gc_pos, const GcHeapOptions& options) {
  std::unique_ptr<GcHeap> heap(new (std::nothrow) GcHeap());
  if (!heap) return make_error(ErrorCode::OutOfMemory, "gc heap");
  if (options.index == IndexUse::OnlyExisting) {
    if (gc_pos >= rec.gcs().size()) return make_error(ErrorCode::NotFound, "no such GC");
    auto used = heap->load_from_index(recording_path, rec, gc_pos, options);
    if (!used) return used.error();
    if (!*used) heap.reset();
    return heap;
  }
  GCSNAP_RETURN_IF_ERROR(heap->load(recording_path, rec, gc_pos, options));
  return heap;
}

Status GcHeap::load(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                    const GcHeapOptions& options) {
  if (gc_pos >= rec.gcs().size()) return make_error(ErrorCode::NotFound, "no such GC");
  if (!rec.gcs()[gc_pos].has_heap_walk()) return make_error(ErrorCode::NoHeapWalk, "the GC has no heap walk");
  if (options.index != IndexUse::Ignore) {
    auto used = load_from_index(recording_path, rec, gc_pos, options);
    if (!used) return used.error();
    if (*used) return {};
  }
  return decode(rec, gc_pos, options);
}

// Names, roots and the statics from the recording; the heavy parts from the analysis index.
// False when the index cannot serve this heap (none with IndexUse::Existing, or forged): the
// caller decodes then. Nothing but the graph is set before it is known to serve.
Result<bool> GcHeap::load_from_index(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                                     const GcHeapOptions& options) {
  std::optional<AnalysisIndex> found;
  bool saved = false;
  if (options.index == IndexUse::Build) {
    auto opened = open_analysis_index(recording_path, rec, gc_pos, true, options.progress, index_parts_for(options.needs));
    if (!opened) return opened.error();
    saved = opened->source == IndexSource::BuiltSaved;
    found.emplace(std::move(opened->index));
  } else {
    found = find_analysis_index(recording_path, rec, gc_pos, index_parts_for(options.needs));
    if (!found) return false;
  }
  AnalysisIndex& ix = *found;
  auto read_roots = rec.read_roots(gc_pos);
  if (!read_roots) return read_roots.error();
  // The index's root positions refer to this root table: one that does not match it (a forged
  // index) is not used.
  if (read_roots->size() != ix.root_entries) return false;
  auto read_names = rec.read_names(gc_pos);
  if (!read_names) return read_names.error();
  // The tree keeps a pointer to the HeapGraph it is built over: build it over ours.
  graph = std::move(ix.graph);
  if (ix.parts & kIndexPathTree) {
    // A tree whose root marks do not match the roots (forged) is not used either.
    auto kept = kept_path_tree(ix, graph);
    if (!kept) {
      graph = HeapGraph();
      return false;
    }
    indexed_paths = std::move(kept).value();
  }
  roots = std::move(read_roots).value();
  names = std::move(read_names).value();
  has_dependent = ix.has_dependent_handles;
  generations = ix.generations;
  parts_ = ix.parts;
  if (ix.parts & kIndexDominators) indexed_dominators = std::move(ix.dominators);
  if (ix.parts & kIndexTypes) indexed_types = std::move(ix.type_stats);
  indexed_unreachable = std::pair{ix.unreachable_objects, ix.unreachable_bytes};
  if (options.needs & kNeedEdgeSlots) edge_slots = std::move(ix.edge_slots);
  if (options.needs & kNeedStatics) GCSNAP_RETURN_IF_ERROR(read_statics_and_delegates(rec, gc_pos, *this));
  index_storage_ = std::move(ix.storage);
  from_index_ = true;
  saved_index_ = saved;
  recording_path_ = recording_path;
  recording_ = &rec;
  gc_pos_ = gc_pos;
  return true;
}

Status GcHeap::decode(const Recording& rec, size_t gc_pos, const GcHeapOptions& options) {
  const bool fields = (options.needs & kNeedFieldNames) != 0;
  auto read_objects = rec.read_objects(gc_pos, ObjectReadOptions{fields});
  if (!read_objects) return read_objects.error();
  objects = std::move(read_objects).value();
  generations = objects.generations;
  auto read_roots = rec.read_roots(gc_pos);
  if (!read_roots) return read_roots.error();
  roots = std::move(read_roots).value();
  auto read_names = rec.read_names(gc_pos);
  if (!read_names) return read_names.error();
  names = std::move(read_names).value();
  // §6.11: ConditionalWeakTable values are held by their keys; without the section (1.0
  // recordings) the graph has no such edges.
  auto has_section = rec.has_dependent_handle_section(gc_pos);
  if (!has_section) return has_section.error();
  has_dependent = *has_section;
  auto read_dependent = rec.read_dependent_handles(gc_pos);
  if (!read_dependent) return read_dependent.error();
  dependent = std::move(read_dependent).value();
  // A caller of the objects alone (the first pass of `leaks`) gets a graph without edges: the
  // references are neither resolved nor kept, and the trees say they cannot be had (parts_).
  const bool objects_only = (options.needs & ~HeapNeeds{kNeedObjects | kNeedTypeIds}) == 0;
  if (objects_only) {
    objects.release_references();
    objects.reference_offsets.assign(objects.size() + 1, 0);
    parts_ = kIndexObjects | kIndexTypeIds;
  }
  auto built = HeapGraph::build(objects, roots, has_dependent && !objects_only ? &dependent : nullptr);
  if (!built) return built.error();
  graph = std::move(built).value();
  if (fields) {
    auto slots = EdgeSlots::build(objects, graph);
    if (!slots) return slots.error();
    edge_slots = std::move(slots).value();
    GCSNAP_RETURN_IF_ERROR(read_statics_and_delegates(rec, gc_pos, *this));
  }
  // The graph holds its own edges now: give the address-form ones back (8 B per edge).
  objects.release_references();
  if (options.needs & kNeedPredecessors) GCSNAP_RETURN_IF_ERROR(graph.build_reverse());
  return {};
}

Result<const DominatorTree*> GcHeap::find_dominators(bool include_weak) {
  if (!include_weak && indexed_dominators) return &*indexed_dominators;
  if (computed_dominators_ && computed_include_weak_ == include_weak) return &*computed_dominators_;
  // A graph mapped or decoded without its edges cannot give a tree: the caller asked too little.
  if ((parts_ & (kIndexObjects | kIndexForward)) != (kIndexObjects | kIndexForward))
    return make_error(ErrorCode::InvalidState, "dominators asked of a heap read without its edges");
  computed_dominators_.reset();
  GCSNAP_RETURN_IF_ERROR(graph.build_reverse());
  auto computed = DominatorTree::compute(graph, DominatorOptions{include_weak});
  if (!computed) return computed.error();
  computed_dominators_ = std::move(computed).value();
  computed_include_weak_ = include_weak;
  return &*computed_dominators_;
}

Result<std::vector<TypeStats>> GcHeap::find_type_histogram(bool include_weak, const TypeHistogramOptions& options) {
  if (!include_weak && indexed_types) {
    std::vector<TypeStats> stats = *indexed_types;
    sort_type_stats(stats, options);
    return stats;
  }
  auto dom = find_dominators(include_weak);
  if (!dom) return dom.error();
  return build_type_histogram(graph, *dom, options, generations);
}

Result<std::vector<TypeStats>> GcHeap::find_type_counts(const TypeHistogramOptions& options) const {
  if (indexed_types) {
    std::vector<TypeStats> stats = *indexed_types;
    sort_type_stats(stats, options);
    return stats;
  }
  return build_type_histogram(graph, nullptr, options, generations);
}

Result<const ShortestPathTree*> GcHeap::find_path_tree() {
  if (indexed_paths) return &*indexed_paths;
  if (!computed_paths_) {
    if ((parts_ & (kIndexObjects | kIndexForward)) != (kIndexObjects | kIndexForward))
      return make_error(ErrorCode::InvalidState, "paths asked of a heap read without its edges");
    auto computed = ShortestPathTree::compute(graph, RetentionOptions{});
    if (!computed) return computed.error();
    computed_paths_ = std::move(computed).value();
  }
  return &*computed_paths_;
}

Result<std::pair<uint64_t, uint64_t>> GcHeap::find_unreachable(bool include_weak) {
  if (!include_weak && indexed_unreachable) return *indexed_unreachable;
  auto dom = find_dominators(include_weak);
  if (!dom) return dom.error();
  return std::pair{(*dom)->unreachable_count(), (*dom)->unreachable_bytes()};
}

Result<std::unique_ptr<IndexStream>> GcHeap::open_index_stream() const {
  if (!from_index_ || !recording_) return make_error(ErrorCode::InvalidState, "the heap was not read from an index");
  auto id = identify_gc(recording_path_, *recording_, gc_pos_);
  if (!id) return id.error();
  return IndexStream::open(analysis_index_path(recording_path_, id->gc_number), *id);
}

std::vector<uint32_t> GcHeap::type_ids() const {
  std::vector<uint32_t> ids;
  if (indexed_types) {
    ids.reserve(indexed_types->size());
    for (const TypeStats& t : *indexed_types) ids.push_back(t.type_id);  // sorted by id in the index
    return ids;
  }
  ids.assign(graph.type_ids().begin(), graph.type_ids().end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace gcsnap
