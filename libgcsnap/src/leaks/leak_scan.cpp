#include "leaks/leak_scan.hpp"

#include "analysis/bfs_prefetch.hpp"
#include "analysis/group_retained.hpp"
#include "analysis/root_order.hpp"
#include "huge_pages.hpp"

#include <algorithm>
#include <new>
#include <unordered_map>

#include "gcsnap/object_diff.hpp"
#include "gcsnap/object_identity.hpp"
#include "gcsnap/retention.hpp"

namespace gcsnap::leaks {

uint32_t TypeInterner::intern(const NameTable& names, uint32_t type_id) {
  if (const auto it = by_id_.find(type_id); it != by_id_.end()) return it->second;
  const std::string_view name = names.type_name(type_id);
  auto found = ids_.find(name);
  if (found == ids_.end()) {
    found = ids_.emplace(std::string(name), static_cast<uint32_t>(names_.size())).first;
    names_.emplace_back(name);
  }
  by_id_.emplace(type_id, found->second);
  return found->second;
}

namespace {

// Match the previous walk's objects to this one's through the ranges of every GC in between
// and give the survivors their birth walk; NEXT (if not null): each previous object's index
// here, or kNoBirth where it died. False when a GC in between has no ranges: then nothing is
// known and every object counts as born now.
Result<bool> inherit_births(const Recording& recording, const ScannedWalk& previous, ScannedWalk& current,
                            std::vector<uint32_t>* next) {
  for (size_t i = previous.gc_pos + 1; i <= current.gc_pos; ++i)
    if (!has_complete_transition(recording, i)) return false;
  auto mapper = map_objects(recording, previous.gc_pos, current.gc_pos, previous.addresses(), previous.generations());
  if (!mapper) return mapper.error();
  auto diff = diff_objects(previous.sizes(), current.graph().addresses(), current.graph().sizes(), mapper->addresses(),
                           AliveBits{mapper->alive_bits()});
  if (!diff) return diff.error();
  if (next) next->assign(diff->b_index_of_a.size(), kNoBirth);
  for (size_t i = 0; i < diff->b_index_of_a.size(); ++i) {
    const size_t b = diff->b_index_of_a[i];
    if (b == kNoObject) continue;
    current.birth[b] = previous.birth[i];
    if (next) (*next)[i] = static_cast<uint32_t>(b);
  }
  return true;
}

// Global type ids per node: one interning per type id of the walk, not per node.
void intern_types(ScannedWalk& s, TypeInterner& types) {
  const HeapGraph& g = s.graph();
  const size_t n = g.node_count();
  detail::assign_huge(s.type, n, uint32_t{0});
  uint32_t max_id = 0;
  for (NodeIndex v = 0; v < n; ++v) max_id = std::max(max_id, g.type_id(v));
  if (max_id >= (1u << 24)) {  // sparse ids: intern per node
    for (NodeIndex v = 0; v < n; ++v) s.type[v] = types.intern(s.names(), g.type_id(v));
    return;
  }
  std::vector<uint32_t> global(size_t{max_id} + 1, kNoBirth);
  for (NodeIndex v = 0; v < n; ++v) {
    uint32_t& t = global[g.type_id(v)];
    if (t == kNoBirth) t = types.intern(s.names(), g.type_id(v));
    s.type[v] = t;
  }
}

void add_type_points(const ScannedWalk& s, SeriesTable& series, uint32_t walk_index, size_t type_count) {
  if (series.type_counts.size() < type_count) {
    series.type_counts.resize(type_count);
    series.type_bytes.resize(type_count);
  }
  for (NodeIndex v = 0; v < s.graph().node_count(); ++v) {
    auto& counts = series.type_counts[s.type[v]];
    auto& bytes = series.type_bytes[s.type[v]];
    if (counts.empty()) {
      counts.resize(series.walks);
      bytes.resize(series.walks);
    }
    ++counts[walk_index];
    bytes[walk_index] += s.graph().object_size(v);
  }
}

}  // namespace

namespace {

// The BFS's trie steps, taken in the order the objects are found but a few dozen objects
// late, each slot prefetched when its object is found: a walk of the synthetic series makes
// about one shape per object, so nearly every step is a cache miss in a map of hundreds of MB,
// and these overlap instead of following one another. Same order, so the same shape ids.
class PendingSteps {
 public:
  static constexpr uint32_t kPending = ShapeTrie::kNone - 1;  // a shape id no trie reaches

  PendingSteps(ScannedWalk& s, ShapeTrie& trie) : s_(s), trie_(trie) {}
  // Object W, found from a node of shape PARENT_SHAPE: its shape is to come.
  void add(NodeIndex w, uint32_t parent_shape) {
    if (size_ == kSlots) take_one();
    const uint32_t type = s_.type[w];
    trie_.prefetch(parent_shape, type);
    ring_[(front_ + size_++) % kSlots] = Step{w, parent_shape, type};
    s_.shape[w] = kPending;
  }
  // Take the steps until V has its shape (V's step is queued: those before it go first).
  void resolve(NodeIndex v) {
    while (s_.shape[v] == kPending) take_one();
  }
  void resolve_all() {
    while (size_ > 0) take_one();
  }

 private:
  struct Step {
    NodeIndex node;
    uint32_t parent_shape, type;
  };
  static constexpr size_t kSlots = 32;
  void take_one() {
    const Step& step = ring_[front_];
    s_.shape[step.node] = trie_.extend(step.parent_shape, step.type);
    front_ = (front_ + 1) % kSlots;
    --size_;
  }

  ScannedWalk& s_;
  ShapeTrie& trie_;
  Step ring_[kSlots];
  size_t front_ = 0, size_ = 0;
};

}  // namespace

// Every object's shape extends its BFS parent's: one trie step per object. The search's loads
// are started ahead of it (BfsPrefetch): without, it waited on a cache miss for most edges.
void assign_shapes(ScannedWalk& s, ShapeTrie& trie, bool include_weak, bool with_hops) {
  const auto roots = s.graph().roots();
  const size_t n = s.graph().node_count();
  trie.reserve(n);
  detail::assign_huge(s.shape, n, ShapeTrie::kNone);
  s.hops = {};
  if (with_hops) detail::assign_huge(s.hops, n, uint32_t{0});
  std::vector<NodeIndex> queue;
  detail::reserve_huge(queue, n);
  for (uint32_t r : roots_by_priority(s.graph().roots(), include_weak)) {
    const NodeIndex node = roots[r].node;
    if (s.shape[node] != ShapeTrie::kNone) continue;
    s.shape[node] = trie.extend(trie.root(static_cast<uint8_t>(roots[r].kind), roots[r].flags), s.type[node]);
    queue.push_back(node);
  }
  PendingSteps pending(s, trie);
  const detail::BfsPrefetch prefetch(s.graph());
  const uint32_t* shape = s.shape.data();
  const uint32_t* type = s.type.data();
  auto touch = [&](NodeIndex w) {
    detail::prefetch_line(shape + w);
    detail::prefetch_line(type + w);
  };
  for (size_t head = 0; head < queue.size(); ++head) {
    prefetch.ahead(queue, head, touch);
    const NodeIndex v = queue[head];
    pending.resolve(v);
    for (NodeIndex w : s.graph().successors(v)) {
      if (s.shape[w] != ShapeTrie::kNone) continue;
      pending.add(w, s.shape[v]);
      if (with_hops) s.hops[w] = s.hops[v] + 1;
      queue.push_back(w);
    }
  }
  pending.resolve_all();
}

// The index's tree has each node's BFS parent: a node's shape is its parent's extended, so
// the nodes are taken in index order and each climbs to the first ancestor with a shape
// (a read of the parent per node instead of the BFS's scan of every edge).
bool assign_shapes_from_tree(ScannedWalk& s, ShapeTrie& trie) {
  if (!s.heap || !s.heap->indexed_paths) return false;
  const HeapGraph& g = s.graph();
  const auto parents = s.heap->indexed_paths->parents();
  const size_t n = g.node_count();
  if (parents.size() != n) return false;
  const auto roots = g.roots();
  std::unordered_map<NodeIndex, uint32_t> root_of;  // a root's object -> its first root
  for (uint32_t r : roots_by_priority(g.roots(), false)) root_of.try_emplace(roots[r].node, r);
  trie.reserve(n);
  detail::assign_huge(s.shape, n, ShapeTrie::kNone);
  s.hops = {};
  std::vector<NodeIndex> stack;
  for (NodeIndex v = 0; v < n; ++v) {
    if (s.shape[v] != ShapeTrie::kNone || parents[v] == kNoNode) continue;
    stack.clear();
    NodeIndex u = v;
    for (;;) {
      stack.push_back(u);
      const NodeIndex p = parents[u];
      if (p == ShortestPathTree::kRootMark) break;
      // A forged tree (a parent not reached, or a cycle): the caller runs the BFS instead.
      if (p >= n || parents[p] == kNoNode || stack.size() > n) return false;
      if (s.shape[p] != ShapeTrie::kNone) break;
      u = p;
    }
    for (size_t i = stack.size(); i-- > 0;) {
      const NodeIndex w = stack[i];
      const NodeIndex p = parents[w];
      if (p != ShortestPathTree::kRootMark) {
        s.shape[w] = trie.extend(s.shape[p], s.type[w]);
        continue;
      }
      const auto r = root_of.find(w);
      if (r == root_of.end()) return false;
      const GraphRoot& root = roots[r->second];
      s.shape[w] = trie.extend(trie.root(static_cast<uint8_t>(root.kind), root.flags), s.type[w]);
    }
  }
  return true;
}

void ScannedWalk::slim() {
  if (!heap) return;
  ObjectTable& objects = heap->objects;
  if (!heap->is_from_index() && objects.size() == heap->graph.node_count()) {
    // A decoded heap's columns are the graph's: taken, not copied into fresh pages (17 B per
    // object and walk).
    kept_addresses = std::move(objects.addresses);
    kept_sizes = std::move(objects.sizes);
    kept_generations = std::move(objects.generations);
  } else {
    const auto a = heap->graph.addresses(), z = heap->graph.sizes();
    kept_addresses.assign(a.begin(), a.end());
    kept_sizes.assign(z.begin(), z.end());
    kept_generations.assign(heap->generations.begin(), heap->generations.end());
  }
  dominators = nullptr;
  kept_dominators.reset();
  heap.reset();
  // Not `= {}`, which keeps the capacity: the next walk is read beside this one.
  std::vector<uint32_t>().swap(shape);
  std::vector<uint32_t>().swap(hops);
  std::vector<uint32_t>().swap(type);
}

namespace {

GcHeapOptions full_options(const std::string& path, bool include_weak) {
  GcHeapOptions options;
  options.index = path.empty() ? IndexUse::Ignore : IndexUse::Existing;
  // An index's dominator tree is over strong roots only: with weak roots it is computed. The
  // predecessors serve that and the holder searches' owner search, which without them reads
  // every edge of the walk once per suspect (13 % of `leaks` from the indexes at 10 x 2 M).
  options.needs = kNeedGraph | kNeedPredecessors | (include_weak ? HeapNeeds{0} : HeapNeeds{kNeedDominators});
  return options;
}

}  // namespace

Status reopen_walk(ScannedWalk& s, const Recording& recording, const std::string& path, bool include_weak) try {
  auto heap = GcHeap::open(path, recording, s.gc_pos, full_options(path, include_weak));
  if (!heap) return heap.error();
  if (heap.value()->graph.node_count() != s.shape.size())
    return make_error(ErrorCode::InconsistentData, "a heap walk changed while it was read");
  s.heap = std::move(heap).value();
  if (s.kept_dominators) {
    s.dominators = &*s.kept_dominators;
    return {};
  }
  return find_walk_dominators(s, include_weak);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "scanning a heap walk for leak suspects");
}

Result<std::unique_ptr<ScannedWalk>> scan_walk(const Recording& recording, const std::string& path, size_t gc_pos,
                                               uint32_t walk_index, const ScannedWalk* previous, bool* identity,
                                               TypeInterner& types, SeriesTable& series, bool full,
                                               bool include_weak, std::vector<uint32_t>* next_of_previous) try {
  auto s = std::make_unique<ScannedWalk>();
  s->gc_pos = gc_pos;
  GcHeapOptions options = full_options(path, include_weak);
  // The reverse edges serve the holder searches once the last walk is opened again
  // (reopen_walk), and a computed dominator tree, which find_walk_dominators builds them for.
  options.needs = full ? options.needs & ~HeapNeeds{kNeedPredecessors} : HeapNeeds{kNeedObjects};
  auto heap = GcHeap::open(path, recording, gc_pos, options);
  if (!heap) return heap.error();
  s->heap = std::move(heap).value();
  const size_t n = s->graph().node_count();
  intern_types(*s, types);
  detail::assign_huge(s->birth, n, walk_index);
  *identity = false;
  if (previous) {
    auto inherited = inherit_births(recording, *previous, *s, next_of_previous);
    if (!inherited) return inherited.error();
    *identity = *inherited;
  }
  add_type_points(*s, series, walk_index, types.size());
  return s;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "scanning a heap walk for leak suspects");
}

Status find_walk_dominators(ScannedWalk& s, bool include_weak) try {
  auto dom = s.heap->find_dominators(include_weak);
  if (!dom) return dom.error();
  s.dominators = *dom;
  return {};
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "scanning a heap walk for leak suspects");
}

Result<std::unique_ptr<ScannedWalk>> open_walk_graph(const Recording& recording, const std::string& path, size_t gc_pos,
                                                     TypeInterner& types, bool include_weak) try {
  auto s = std::make_unique<ScannedWalk>();
  s->gc_pos = gc_pos;
  GcHeapOptions options;
  options.index = path.empty() ? IndexUse::Ignore : IndexUse::Existing;
  // The index's shortest-path tree (strong roots) gives the shapes without a BFS.
  options.needs = kNeedGraph | (include_weak ? HeapNeeds{0} : HeapNeeds{kNeedDominators | kNeedPathTree});
  auto heap = GcHeap::open(path, recording, gc_pos, options);
  if (!heap) return heap.error();
  s->heap = std::move(heap).value();
  // An earlier walk's tree serves only its candidates' retained bytes: the index's when it has
  // one, else none (group_retained_bytes over the graph needs no tree of the whole graph, nor
  // its reverse CSR: at 10 x 10 M objects those were a third of `leaks --no-cache`).
  if (!include_weak && s->heap->indexed_dominators) s->dominators = &*s->heap->indexed_dominators;
  types.start_recording();
  intern_types(*s, types);
  return s;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "scanning a heap walk for leak suspects");
}

}  // namespace gcsnap::leaks
