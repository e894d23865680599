#include "gcsnap/walk_diff.hpp"

#include <algorithm>
#include <map>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "analysis/follow_match.hpp"
#include "gcsnap/object_identity.hpp"

namespace gcsnap {

uint64_t HeapWalk::total_bytes() const noexcept {
  uint64_t bytes = 0;
  for (uint64_t size : objects.sizes) bytes += size;
  return bytes;
}

// Function-try-blocks: allocation failures become OutOfMemory (docs/library.md "Errors").
Result<HeapWalk> read_heap_walk(const Recording& recording, size_t gc_pos, const ObjectReadOptions& options) try {
  if (gc_pos >= recording.gcs().size()) return make_error(ErrorCode::NotFound, "no such GC index");
  HeapWalk walk;
  walk.gc_pos = gc_pos;
  walk.gc_number = recording.gcs()[gc_pos].info.gc_number;
  auto objects = recording.read_objects(gc_pos, options);
  if (!objects) return objects.error();
  walk.objects = std::move(objects).value();
  auto roots = recording.read_roots(gc_pos);
  if (!roots) return roots.error();
  walk.roots = std::move(roots).value();
  auto names = recording.read_names(gc_pos);
  if (!names) return names.error();
  walk.names = std::move(names).value();
  // §6.11: without the section (1.0 recordings) nothing tells a ConditionalWeakTable value
  // from garbage; has_dependent lets callers say so.
  auto has_dependent = recording.has_dependent_handle_section(gc_pos);
  if (!has_dependent) return has_dependent.error();
  walk.has_dependent = *has_dependent;
  auto dependent = recording.read_dependent_handles(gc_pos);
  if (!dependent) return dependent.error();
  walk.dependent = std::move(dependent).value();
  return walk;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading a heap walk");
}

namespace {

// Two processes share no addresses or ids: roots are compared by what they hold. Object ids
// become interned type names, stack root ids interned method names, other ids 0.
class RootRelabeler {
 public:
  RootTable relabel(const WalkView& walk) {
    RootTable out = *walk.roots;
    for (size_t i = 0; i < out.size(); ++i) {
      out.object_ids[i] = intern(type_of(walk, walk.roots->object_ids[i]));
      const MethodRecord* m = out.kinds[i] == RootKind::Stack ? walk.names->find_method(out.root_ids[i]) : nullptr;
      out.root_ids[i] = m ? intern(m->name) : 0;
    }
    return out;
  }

 private:
  static std::string_view type_of(const WalkView& walk, uint64_t address) {
    const auto row = address == 0 ? std::nullopt : find_containing(walk.addresses, walk.sizes, address);
    if (!row) return {};
    return walk.names->type_name(walk.type_ids[*row]);
  }
  uint64_t intern(std::string_view text) {
    if (text.empty()) return 0;
    return ids_.try_emplace(std::string(text), ids_.size() + 1).first->second;
  }
  std::map<std::string, uint64_t, std::less<>> ids_;
};

// find_containing_each over a view whose sizes are looked up (WalkView::lookup): only a query
// inside an object, not at its start, needs that object's size.
Result<std::vector<std::optional<size_t>>> find_containing_looked_up(const WalkView& walk,
                                                                     std::span<const uint64_t> queries) {
  std::vector<std::optional<size_t>> out(queries.size());
  std::vector<size_t> inside, rows;  // the queries inside an object, and those objects' rows
  for (size_t k = 0; k < queries.size(); ++k) {
    const auto it = std::upper_bound(walk.addresses.begin(), walk.addresses.end(), queries[k]);
    if (it == walk.addresses.begin()) continue;
    const size_t row = static_cast<size_t>(it - walk.addresses.begin()) - 1;
    if (walk.addresses[row] == queries[k]) {
      out[k] = row;
    } else {
      inside.push_back(k);
      rows.push_back(row);
    }
  }
  std::vector<uint64_t> sizes(rows.size());
  GCSNAP_RETURN_IF_ERROR(walk.lookup->find_sizes(rows, sizes));
  // As covering(): a zero-size object holds its own start, which was matched above.
  for (size_t m = 0; m < inside.size(); ++m)
    if (queries[inside[m]] - walk.addresses[rows[m]] < std::max<uint64_t>(sizes[m], 1)) out[inside[m]] = rows[m];
  return out;
}

// Generation of each address per the walk (containing object), as hints for the mapper. The
// addresses are looked up in ascending order: one pass over the walk, not a search each.
Result<std::vector<Generation>> generation_hints(const WalkView& walk, std::span<const uint64_t> addresses) {
  std::vector<Generation> out(addresses.size(), Generation::Unknown);
  if (walk.generations.empty()) return out;
  std::vector<uint32_t> order(addresses.size());
  std::iota(order.begin(), order.end(), uint32_t{0});
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return addresses[x] < addresses[y]; });
  std::vector<uint64_t> sorted(addresses.size());
  for (size_t k = 0; k < order.size(); ++k) sorted[k] = addresses[order[k]];
  std::vector<std::optional<size_t>> rows;
  if (walk.lookup) {
    auto found = find_containing_looked_up(walk, sorted);
    if (!found) return found.error();
    rows = std::move(found).value();
  } else {
    rows = find_containing_each(walk.addresses, walk.sizes, sorted);
  }
  for (size_t k = 0; k < order.size(); ++k)
    if (rows[k]) out[order[k]] = walk.generations[*rows[k]];
  return out;
}

// A's sizes and type ids at its dead and missing objects (WalkView::lookup), in one pass.
struct LookedUp {
  std::vector<uint64_t> dead_sizes;
  std::vector<uint32_t> dead_types;
  uint64_t dead_bytes = 0, missing_bytes = 0;
};

Result<LookedUp> look_up_dead(const WalkView& a, const ObjectDiff& diff) {
  const auto& dead = diff.dead_objects;
  const auto& missing = diff.missing_in_b;
  LookedUp out;
  if (missing.empty()) {  // the usual case: the dead objects' columns are the answer, not copied
    out.dead_sizes.resize(dead.size());
    out.dead_types.resize(dead.size());
    GCSNAP_RETURN_IF_ERROR(a.lookup->gather(dead, out.dead_sizes, out.dead_types));
    for (uint64_t size : out.dead_sizes) out.dead_bytes += size;
    return out;
  }
  // Both sorted and apart (dead objects are not followed to B): merged into one pass.
  std::vector<size_t> rows(dead.size() + missing.size());
  std::merge(dead.begin(), dead.end(), missing.begin(), missing.end(), rows.begin());
  std::vector<uint64_t> sizes(rows.size());
  std::vector<uint32_t> types(rows.size());
  GCSNAP_RETURN_IF_ERROR(a.lookup->gather(rows, sizes, types));
  out.dead_sizes.reserve(dead.size());
  out.dead_types.reserve(dead.size());
  for (size_t k = 0, d = 0; k < rows.size(); ++k) {
    if (d < dead.size() && rows[k] == dead[d]) {
      ++d;
      out.dead_sizes.push_back(sizes[k]);
      out.dead_types.push_back(types[k]);
      out.dead_bytes += sizes[k];
    } else {
      out.missing_bytes += sizes[k];
    }
  }
  return out;
}

}  // namespace

Result<RootDiff> diff_roots_by_content(const HeapWalk& a, const HeapWalk& b) {
  return diff_roots_by_content(view_of(a), view_of(b));
}

Result<RootDiff> diff_roots_by_content(const WalkView& a, const WalkView& b) try {
  if (!a.roots || !a.names || !b.roots || !b.names || a.blocks || b.blocks || a.lookup || b.lookup)
    return make_error(ErrorCode::InvalidArgument, "a diff view lacks roots, names or its columns");
  RootRelabeler labels;
  const RootTable la = labels.relabel(a);
  const RootTable lb = labels.relabel(b);
  return diff_roots(la, {}, lb);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "matching roots by content");
}

WalkView view_of(const HeapWalk& walk) noexcept {
  WalkView v;
  v.gc_pos = walk.gc_pos;
  v.gc_number = walk.gc_number;
  v.addresses = walk.objects.addresses;
  v.sizes = walk.objects.sizes;
  v.type_ids = walk.objects.type_ids;
  v.generations = walk.objects.generations;
  v.roots = &walk.roots;
  v.names = &walk.names;
  v.walk = &walk;
  return v;
}

Result<WalkDiff> diff_walks(const Recording& recording, const HeapWalk& a, const HeapWalk& b, size_t top) {
  return diff_walks(recording, view_of(a), view_of(b), WalkDiffOptions{top, 1, {}});
}

Result<WalkDiff> diff_walks(const Recording& recording, const HeapWalk& a, const HeapWalk& b,
                            const WalkDiffOptions& options) {
  return diff_walks(recording, view_of(a), view_of(b), options);
}

namespace {

bool well_formed(const WalkView& v) noexcept {
  const size_t n = v.object_count();
  // Not held: the addresses and sizes with blocks, the sizes and type ids with a lookup, all
  // four with objects.
  const size_t held = v.objects ? 0 : n;
  const size_t addresses = v.blocks ? 0 : held, sizes = v.blocks || v.lookup ? 0 : held, types = v.lookup ? 0 : held;
  const int sources = (v.blocks != nullptr) + (v.lookup != nullptr) + (v.objects != nullptr);
  return v.roots && v.names && sources <= 1 && v.addresses.size() == addresses && v.sizes.size() == sizes &&
         v.type_ids.size() == types && (v.generations.size() == held || v.generations.empty());
}

// The earlier GC's objects and roots' objects followed to the later GC and matched there.
struct Matched {
  RootDiff roots;  // from the earlier GC to the later
  ObjectDiff diff;
  LookedUp looked;
  bool listed = false;  // the dead objects' sizes and type ids are in `looked` (not held by the view)
};

Result<RootDiff> diff_followed_roots(const RootTable& early_roots, const BulkMapper& followed, const RootTable& late) {
  std::vector<uint64_t> mapped_roots(early_roots.size());
  for (size_t i = 0; i < early_roots.size(); ++i) mapped_roots[i] = followed.is_alive(i) ? followed.addresses()[i] : 0;
  return diff_roots(early_roots, mapped_roots, late);
}

// Follow the earlier GC's objects in bulk, GC by GC (BulkMapper), then match them with the later.
Result<Matched> match_in_bulk(const Recording& recording, const WalkView& early, const WalkView& late) {
  // One pass over the GCs in between follows the objects and the roots' objects together (two
  // mappers: the objects are in address order, which spares their mapper a permutation).
  const RootTable& early_roots = *early.roots;
  // The roots' hints read the early columns: before the objects' mapper may take them.
  auto hints = generation_hints(early, early_roots.object_ids);
  if (!hints) return hints.error();
  auto root_objects = BulkMapper::create(early_roots.object_ids, *hints);
  if (!root_objects) return root_objects.error();
  const bool movable = early.movable_addresses && early.movable_generations &&
                       early.movable_addresses->data() == early.addresses.data() &&
                       early.movable_addresses->size() == early.addresses.size() &&
                       early.movable_generations->size() == early.generations.size();
  auto objects = movable
                     ? BulkMapper::create(std::move(*early.movable_addresses), std::move(*early.movable_generations))
                     : BulkMapper::create(early.addresses, early.generations);
  if (!objects) return objects.error();
  BulkMapper* mappers[] = {&*objects, &*root_objects};
  GCSNAP_RETURN_IF_ERROR(map_objects(recording, early.gc_pos, late.gc_pos, mappers));

  Matched out;
  auto roots = diff_followed_roots(early_roots, *root_objects, *late.roots);
  if (!roots) return roots.error();
  out.roots = std::move(roots).value();
  const AliveBits alive{objects->alive_bits()};
  auto diff = late.blocks ? diff_objects(early.sizes, *late.blocks, objects->addresses(), alive)
                          : diff_objects(early.sizes, late.addresses, late.sizes, objects->addresses(), alive, false);
  if (!diff) return diff.error();
  out.diff = std::move(diff).value();
  { const BulkMapper done = std::move(*objects); }  // 9 B per object of the earlier GC, not needed from here
  if (early.lookup) {
    auto read = look_up_dead(early, out.diff);
    if (!read) return read.error();
    out.looked = std::move(read).value();
    out.diff.dead_bytes = out.looked.dead_bytes;
    out.listed = true;
  }
  return out;
}

// Follow the earlier GC's objects, block by block, through the one GC to the later and match
// them as they come (detail::follow_and_match): EARLY.objects.
Result<Matched> match_streamed(const Recording& recording, const WalkView& early, const WalkView& late) {
  if (late.gc_pos != early.gc_pos + 1)
    return make_error(ErrorCode::InvalidArgument, "a diff reads A's objects in blocks only with B the GC after A");
  if (!has_complete_transition(recording, late.gc_pos))
    return make_error(ErrorCode::InconsistentData, "ranges of a GC in between are missing");
  auto gc = read_transition(recording, late.gc_pos);
  if (!gc) return gc.error();
  const RootTable& early_roots = *early.roots;
  auto followed =
      late.blocks ? detail::follow_and_match(*gc, *early.objects, *late.blocks, early_roots.object_ids)
                  : detail::follow_and_match(*gc, *early.objects, late.addresses, late.sizes, early_roots.object_ids);
  if (!followed) return followed.error();
  auto root_objects = BulkMapper::create(early_roots.object_ids, followed->root_hints);
  if (!root_objects) return root_objects.error();
  GCSNAP_RETURN_IF_ERROR(root_objects->apply(*gc));
  Matched out;
  auto roots = diff_followed_roots(early_roots, *root_objects, *late.roots);
  if (!roots) return roots.error();
  out.roots = std::move(roots).value();
  out.diff = std::move(followed->diff);
  out.looked.dead_sizes = std::move(followed->dead_sizes);
  out.looked.dead_types = std::move(followed->dead_types);
  out.looked.dead_bytes = out.diff.dead_bytes;
  out.looked.missing_bytes = followed->missing_bytes;
  out.listed = true;
  return out;
}

// The new objects grouped by type: from B's sizes, or (B's columns read in blocks) from the
// sizes the diff kept beside them.
Result<std::vector<TypeGroup>> group_new(const WalkView& b, const ObjectDiff& diff, const GroupSelection& selection) {
  if (!b.blocks) return group_by_type(b.type_ids, b.sizes, *b.names, diff.new_objects, selection);
  std::vector<uint32_t> types(diff.new_objects.size());
  for (size_t k = 0; k < types.size(); ++k) types[k] = b.type_ids[diff.new_objects[k]];
  return group_listed_by_type(types, diff.new_sizes, *b.names, diff.new_objects, selection);
}

// B's graph for the paths: the view's own, or one built from its walk.
Result<std::shared_ptr<const HeapGraph>> graph_of(const WalkView& b) {
  if (b.graph) return b.graph;
  if (!b.walk) return make_error(ErrorCode::InvalidArgument, "a diff view has neither a graph nor a walk");
  auto graph = HeapGraph::build(b.walk->objects, b.walk->roots, b.walk->has_dependent ? &b.walk->dependent : nullptr);
  if (!graph) return graph.error();
  return std::shared_ptr<const HeapGraph>(std::make_shared<HeapGraph>(std::move(graph).value()));
}

// The hops of the paths, told by the view (its graph has no forward CSR to tell them).
Status tell_hops(const WalkView& b, std::vector<GroupPath>& paths) {
  auto tell = [&](RetentionPath& path) -> Status {
    for (size_t h = 0; h < path.edges.size(); ++h) {
      auto kind = b.hop_kind(path.nodes[h], path.nodes[h + 1]);
      if (!kind) return kind.error();
      path.edges[h].kind = *kind;
    }
    return Status::ok();
  };
  for (GroupPath& p : paths) {
    GCSNAP_RETURN_IF_ERROR(tell(p.path));
    for (GroupShape& shape : p.more_shapes) GCSNAP_RETURN_IF_ERROR(tell(shape.path));
  }
  return Status::ok();
}

}  // namespace

Result<WalkDiff> diff_walks(const Recording& recording, const WalkView& a, const WalkView& b,
                            const WalkDiffOptions& options) try {
  if (!well_formed(a) || !well_formed(b))
    return make_error(ErrorCode::InvalidArgument, "a diff view lacks roots or names, or its columns differ in length");
  if (a.blocks || (b.blocks && a.gc_pos > b.gc_pos))
    return make_error(ErrorCode::InvalidArgument, "a diff reads columns in blocks only of B, the later GC");
  if (b.lookup || (a.lookup && a.gc_pos > b.gc_pos))
    return make_error(ErrorCode::InvalidArgument, "a diff looks columns up only of A, the earlier GC");
  if (b.objects || (a.objects && a.gc_pos > b.gc_pos))
    return make_error(ErrorCode::InvalidArgument, "a diff reads objects in blocks only of A, the earlier GC");
  const GroupSelection selection{options.top, options.keep_type};
  WalkDiff out;
  // Identity only runs forward in time: follow the earlier side's objects to the later one.
  out.reversed = a.gc_pos > b.gc_pos;
  const WalkView& early = out.reversed ? b : a;
  const WalkView& late = out.reversed ? a : b;
  if (early.roots->size() >= UINT32_MAX) return make_error(ErrorCode::LimitExceeded, "too many roots to follow");
  auto matched = early.objects ? match_streamed(recording, early, late) : match_in_bulk(recording, early, late);
  if (!matched) return matched.error();
  const ObjectDiff* diff = &matched->diff;
  const LookedUp& looked = matched->looked;
  out.roots = std::move(matched->roots);
  if (out.reversed) std::swap(out.roots.added, out.roots.removed);

  // In A-to-B terms: "new" are in B and not in A, "dead" in A and not in B.
  const auto& new_in_b = out.reversed ? diff->dead_objects : diff->new_objects;
  const auto& dead_in_a = out.reversed ? diff->new_objects : diff->dead_objects;
  out.new_count = new_in_b.size();
  out.new_bytes = out.reversed ? diff->dead_bytes : diff->new_bytes;
  out.dead_count = dead_in_a.size();
  out.dead_bytes = out.reversed ? diff->new_bytes : diff->dead_bytes;
  out.surviving_count = diff->surviving_count;
  out.surviving_bytes = out.reversed ? diff->surviving_bytes_a : diff->surviving_bytes_b;
  out.missing_count = diff->missing_in_b.size();
  if (matched->listed) out.missing_bytes = looked.missing_bytes;
  else
    for (size_t i : diff->missing_in_b) out.missing_bytes += early.sizes[i];

  auto groups = out.reversed ? group_by_type(b.type_ids, b.sizes, *b.names, new_in_b, selection)
                             : group_new(b, *diff, selection);
  if (!groups) return groups.error();
  out.new_groups = std::move(groups).value();
  if (!out.new_groups.empty()) {
    auto graph = graph_of(b);
    if (!graph) return graph.error();
    out.graph_b = std::move(graph).value();
    const std::shared_ptr<const ShortestPathTree> tree = b.graph ? b.paths : nullptr;
    auto paths = find_group_paths(*out.graph_b, out.new_groups, 4096, std::max<size_t>(1, options.max_shapes),
                                  tree.get());
    if (!paths) return paths.error();
    out.new_paths = std::move(paths).value();
    if (tree && b.hop_kind) GCSNAP_RETURN_IF_ERROR(tell_hops(b, out.new_paths));
  }
  auto dead = matched->listed
                  ? group_listed_by_type(looked.dead_types, looked.dead_sizes, *a.names, dead_in_a, selection)
                  : group_by_type(a.type_ids, a.sizes, *a.names, dead_in_a, selection);
  if (!dead) return dead.error();
  out.dead_groups = std::move(dead).value();
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "diffing two heap walks");
}

}  // namespace gcsnap
