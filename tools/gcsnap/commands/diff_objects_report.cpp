#include "commands/diff_objects_report.hpp"
#include "commands/diff_hop_names.hpp"

#include <algorithm>
#include <new>

#include <map>

#include <fmt/format.h>

#include "commands/folded_hops_text.hpp"
#include "errors/cli_error.hpp"
#include "loading/heap_load.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/path_fold.hpp"
#include "gcsnap/root_summary.hpp"

namespace gcsnap::cli {

uint64_t DiffSide::total_bytes() const noexcept {
  if (!index) return walk.total_bytes();
  uint64_t bytes = 0;
  for (const TypeStats& t : *index->indexed_types) bytes += t.shallow_bytes;
  return bytes;
}

std::vector<TypeTotal> DiffSide::type_totals() const {
  return value_or_fail(index ? count_by_type(*index->indexed_types, walk.names)
                             : count_by_type(walk.objects, walk.names),
                       selected.file);
}

namespace {

// The shortest-path tree of HEAP's index (read with the node columns and no forward graph), or
// null when it cannot be used: the side is then decoded, as with no index.
std::unique_ptr<IndexedPathTree> read_path_tree(const std::string& file, const GcHeap& heap) {
  auto tree = heap.read_indexed_path_tree();
  if (!tree && tree.error().code == ErrorCode::OutOfMemory) fail_on(file, tree.error());
  if (!tree) return nullptr;
  return std::make_unique<IndexedPathTree>(std::move(tree).value());
}

// The addresses and generations of HEAP's index into SIDE.columns, its sizes and type ids as a
// lookup; false when they cannot be used (the side is then decoded, as with no index).
bool read_columns(DiffSide& side, GcHeap& heap) {
  auto columns = heap.read_object_columns(/*with_sizes=*/false);
  if (!columns && columns.error().code == ErrorCode::OutOfMemory) fail_on(side.selected.file, columns.error());
  if (!columns) return false;
  auto lookup = heap.look_up_object_columns();
  if (!lookup && lookup.error().code == ErrorCode::OutOfMemory) fail_on(side.selected.file, lookup.error());
  if (!lookup) return false;
  side.columns = std::move(columns).value();
  side.lookup = std::move(lookup).value();
  side.has_columns = true;
  return true;
}

// The addresses and sizes of HEAP's index as blocks into SIDE.blocks; false when they cannot
// be opened (the side is then decoded, as with no index).
bool open_blocks(DiffSide& side, const GcHeap& heap) {
  auto blocks = heap.stream_object_columns();
  if (!blocks && blocks.error().code == ErrorCode::OutOfMemory) fail_on(side.selected.file, blocks.error());
  if (!blocks) return false;
  side.blocks = std::move(blocks).value();
  return true;
}

// The four node columns of HEAP's index as blocks into SIDE.objects; false when they cannot be
// opened (the side is then decoded, as with no index).
bool open_objects(DiffSide& side, const GcHeap& heap) {
  auto objects = heap.stream_object_blocks();
  if (!objects && objects.error().code == ErrorCode::OutOfMemory) fail_on(side.selected.file, objects.error());
  if (!objects) return false;
  side.objects = std::move(objects).value();
  return true;
}

// SHARE reads "same shape / examined": say so when a group had more members than were
// examined (a share of 4096 for a group of 5232 is otherwise unexplained).
void note_sampled_shares(const WalkDiff& diff, std::vector<std::string>& notes) {
  for (size_t g = 0; g < diff.new_groups.size(); ++g) {
    const GroupPath& p = diff.new_paths[g];
    if (p.examined == 0 || p.examined >= diff.new_groups[g].count) continue;
    notes.push_back(fmt::format("SHARE = members with the shape / members examined (a group's first {}: {} of {})",
                                p.examined, diff.new_groups[g].count, diff.new_groups[g].name));
    return;
  }
}

}  // namespace

void DiffSide::unload() {
  view = WalkView{};
  blocks.reset();
  objects.reset();
  lookup.reset();
  columns = IndexColumns{};
  has_columns = false;
  path_tree.reset();
  index.reset();
  walk = HeapWalk{};
}

uint64_t DiffSide::address_of(size_t i) const {
  if (!view.blocks && !view.objects && (!has_columns || !columns.addresses.empty())) return view.addresses[i];
  return value_or_fail(index->read_address(i), selected.file);
}

void load_diff_side(DiffSide& side, const Recording& rec, bool use_index, HeapNeeds needs, DiffLoad load,
                    bool field_names) {
  const std::string& file = side.selected.file;
  const size_t gc = side.selected.index;
  const bool blocks = load == DiffLoad::PathTreeBlocks;
  const bool with_tree = load == DiffLoad::PathTree || blocks;
  std::unique_ptr<GcHeap> heap;
  if (use_index) {
    GcHeapOptions options;
    options.index = IndexUse::OnlyExisting;
    options.needs = field_names ? needs : needs & ~HeapNeeds{kNeedFieldNames};
    // The diff reads the addresses and sizes once in blocks: of the parts, the type ids alone.
    if (blocks) options.needs = (options.needs & ~HeapNeeds{kNeedObjects}) | kNeedTypeIds;
    heap = value_or_fail(GcHeap::open(file, rec, gc, options), file);
  }
  // The tree is read and checked now, once, and kept for the diff's paths: a tree that fails
  // its checks makes the side decoded, as with no index.
  std::unique_ptr<IndexedPathTree> tree;
  if (heap && with_tree && !(tree = read_path_tree(file, *heap))) heap.reset();
  if (heap && blocks && !open_blocks(side, *heap)) heap.reset();
  if (heap && load == DiffLoad::Movable && !read_columns(side, *heap)) heap.reset();
  if (heap && load == DiffLoad::Streamed && !open_objects(side, *heap)) heap.reset();
  if (!heap) {
    side.walk = value_or_fail(read_heap_walk(rec, gc, ObjectReadOptions{field_names}), file);
    side.view = view_of(side.walk);
    return;
  }
  HeapWalk& walk = side.walk;
  walk.gc_pos = gc;
  walk.gc_number = rec.gcs()[gc].info.gc_number;
  walk.roots = std::move(heap->roots);
  walk.names = std::move(heap->names);
  walk.has_dependent = heap->has_dependent;
  std::shared_ptr<GcHeap> index(std::move(heap));
  const HeapGraph& graph = index->graph;
  WalkView& v = side.view;
  v.gc_pos = gc;
  v.gc_number = walk.gc_number;
  v.addresses = graph.addresses();
  v.sizes = graph.sizes();
  v.type_ids = graph.type_ids();
  v.generations = index->generations;
  v.blocks = side.blocks.get();
  if (v.blocks) v.addresses = v.sizes = {};  // a graph of type ids alone: its other columns are not there
  if (side.has_columns) {
    v.addresses = side.columns.addresses;
    v.sizes = {};  // looked up, as the type ids
    v.type_ids = {};
    v.generations = side.columns.generations;
    v.lookup = side.lookup.get();
    v.movable_addresses = &side.columns.addresses;
    v.movable_generations = &side.columns.generations;
  }
  if (side.objects) {
    v.addresses = v.sizes = {};  // all four read in blocks
    v.type_ids = {};
    v.generations = {};
    v.objects = side.objects.get();
  }
  v.roots = &walk.roots;
  v.names = &walk.names;
  // The graph and the tree live as long as the heap they point into.
  if (needs & (kNeedSuccessors | kNeedPathTree)) v.graph = std::shared_ptr<const HeapGraph>(index, &graph);
  if (index->indexed_paths) v.paths = std::shared_ptr<const ShortestPathTree>(index, &*index->indexed_paths);
  if (with_tree) {
    DiffSide* s = &side;
    side.path_tree = std::move(tree);
    v.graph = std::shared_ptr<const HeapGraph>(index, &graph);
    v.paths = std::shared_ptr<const ShortestPathTree>(index, &side.path_tree->tree());
    v.hop_kind = [s](NodeIndex from, NodeIndex to) { return s->path_tree->hop_kind(from, to); };
  }
  side.index = std::move(index);
}

Table ObjectLevel::empty_totals() {
  Table t("objects", "Objects (matched through the moved/surviving ranges of every GC in between)");
  t.add_column("category", "OBJECTS").add_column("count", "COUNT", ColumnKind::Count);
  t.add_column("bytes", "BYTES", ColumnKind::Bytes);
  return t;
}

Table ObjectLevel::empty_groups() {
  Table t("new_objects_by_type", "Largest groups of new objects (alive at B, not at A), with their most common retention path");
  t.add_column("type", "TYPE", ColumnKind::TypeName).add_column("count", "COUNT", ColumnKind::Count);
  t.add_column("bytes", "BYTES", ColumnKind::Bytes).add_column("example", "EXAMPLE", ColumnKind::Address);
  t.add_column("path_length", "HOPS", ColumnKind::Count);
  t.add_column("path_share", "SHARE", ColumnKind::Text, Shown::TableOnly);
  t.add_column("path_same", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("path_examined", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("path", "MOST COMMON RETENTION PATH (root -> ... -> example)", ColumnKind::TypeName);
  return t;
}

Table ObjectLevel::empty_dead_groups() {
  Table t("dead_objects_by_type", "Largest groups of dead objects (alive at A, not at B)");
  t.add_column("type", "TYPE", ColumnKind::TypeName).add_column("count", "COUNT", ColumnKind::Count);
  t.add_column("bytes", "BYTES", ColumnKind::Bytes).add_column("example", "EXAMPLE AT A", ColumnKind::Address);
  return t;
}

Table ObjectLevel::empty_more_paths() {
  Table t("new_object_paths", "Other retention path shapes of the new objects (--shapes)");
  t.add_column("type", "TYPE", ColumnKind::TypeName).add_column("shape", "SHAPE", ColumnKind::Count);
  t.add_column("example", "EXAMPLE", ColumnKind::Address).add_column("path_length", "HOPS", ColumnKind::Count);
  t.add_column("path_share", "SHARE", ColumnKind::Text, Shown::TableOnly);
  t.add_column("path_same", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("path_examined", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("path", "RETENTION PATH (root -> ... -> example)", ColumnKind::TypeName);
  return t;
}

// "[handle] -> Zoo.Cache.Orders (static) -> A ._items -> Node .Next ×4249 -> B": hops of one type
// and field out in a row are folded (fold_repeats over the hops' types, how each is held and the
// field out of it), as `leaks` folds its paths; an array's elements fold whatever their index
// (the run shows its first). The groups' shapes are by type: the names are the example's.
std::string diff_path_text(const HeapGraph& graph, const NameTable& names, const RetentionPath& path, bool fold,
                           const DiffHopNamer* namer) {
  if (path.nodes.empty()) return "(not reachable from a strong root)";
  const GraphRoot& root = graph.roots()[path.root];
  std::string flags = root_flags_text(root.flags);
  std::string s = fmt::format("[{}{}{}]", root_kind_name(root.kind), flags.empty() ? "" : " ", flags);
  auto is_dependent = [&](size_t h) {
    return h > 0 && h - 1 < path.edges.size() && path.edges[h - 1].kind == EdgeKind::DependentHandle;
  };
  std::vector<HopField> fields(path.nodes.size());
  if (namer)
    for (size_t h = 1; h < path.nodes.size(); ++h)
      if (!is_dependent(h)) fields[h] = namer->name(path.nodes[h - 1], path.nodes[h]);
  // The field out of hop H as it reads after its type: " .Next", "[17]", "" (none, or unnamed).
  // The space keeps a field apart from its type's dotted name, which a narrow table abbreviates
  // to its last part ("EventHandler ._target", not "_target").
  auto field_out = [&](size_t h) -> std::string {
    if (h + 1 >= fields.size() || fields[h + 1].kind == EdgeNameKind::Unknown) return {};
    return fields[h + 1].kind == EdgeNameKind::Element ? fields[h + 1].text : " ." + fields[h + 1].text;
  };
  std::map<std::string, uint32_t> ids;
  std::vector<uint32_t> keys;
  for (size_t h = 0; h < path.nodes.size(); ++h) {
    const bool element = h + 1 < fields.size() && fields[h + 1].kind == EdgeNameKind::Element;
    std::string key = fmt::format("{}/{}/{}", graph.type_id(path.nodes[h]), is_dependent(h), element ? "[]" : field_out(h));
    keys.push_back(ids.try_emplace(std::move(key), static_cast<uint32_t>(ids.size())).first->second);
  }
  auto folded = fold_repeats(keys, fold ? 4 : 0);
  if (!folded) throw std::bad_alloc();
  s += folded_hops_text(
      *folded,
      [&](size_t h) {
        // A static's name in place of the statics array that holds it, as `leaks` writes it.
        if (h == 0 && fields.size() > 1 && fields[1].is_static) return fields[1].text + " (static)";
        return std::string(names.type_name(graph.type_id(path.nodes[h]))) + field_out(h);
      },
      [&](size_t h) { return std::string(is_dependent(h) ? "-[ConditionalWeakTable]->" : "->"); });
  return s;
}

Table ObjectLevel::empty_path_hops() {
  Table t("path_hops", "Every hop of the groups' retention paths (0 = the object the root points at)");
  t.add_column("type", "TYPE", ColumnKind::TypeName).add_column("shape", "SHAPE", ColumnKind::Count);
  t.add_column("hop", "HOP", ColumnKind::Count).add_column("address", "OBJECT", ColumnKind::Address);
  t.add_column("hop_type", "HOP TYPE", ColumnKind::TypeName).add_column("via", "HELD VIA");
  return t;
}

void add_path_hops(ObjectLevel& out, const HeapGraph& graph, const NameTable& names, const std::string& type,
                   size_t shape, const RetentionPath& path, const std::function<uint64_t(NodeIndex)>& address) {
  for (size_t h = 0; h < path.nodes.size(); ++h) {
    const bool dependent = h > 0 && h - 1 < path.edges.size() && path.edges[h - 1].kind == EdgeKind::DependentHandle;
    out.path_hops.add_row({type, shape, h, address(path.nodes[h]),
                           std::string(names.type_name(graph.type_id(path.nodes[h]))),
                           h == 0 ? "root" : dependent ? "dependent handle" : "reference"});
  }
}

namespace {

void add_group_rows(ObjectLevel& out, const WalkView& b, const WalkDiff& diff, bool fold, const DiffHopNamer& namer,
                    const AddressOf& address) {
  Table& table = out.groups;
  Table& more = out.more_paths;
  for (size_t g = 0; g < diff.new_groups.size(); ++g) {
    const TypeGroup& group = diff.new_groups[g];
    const GroupPath& p = diff.new_paths[g];
    const bool found = p.member != kNoObject;
    const size_t example = found ? p.member : group.members.front();
    // Share: members whose shortest path has this shape, of the members examined.
    table.add_row({group.name, group.count, group.bytes, address(static_cast<NodeIndex>(example)),
                   found ? Cell(static_cast<uint64_t>(p.path.hops())) : Cell(),
                   fmt::format("{}/{}", p.same_shape, p.examined), p.same_shape, p.examined,
                   diff_path_text(*diff.graph_b, *b.names, p.path, fold, &namer)});
    add_path_hops(out, *diff.graph_b, *b.names, group.name, 1, p.path, address);
    for (size_t k = 0; k < p.more_shapes.size(); ++k) {
      const GroupShape& shape = p.more_shapes[k];
      more.add_row({group.name, k + 2, address(static_cast<NodeIndex>(shape.member)), static_cast<uint64_t>(shape.path.hops()),
                    fmt::format("{}/{}", shape.same_shape, p.examined), shape.same_shape, p.examined,
                    diff_path_text(*diff.graph_b, *b.names, shape.path, fold, &namer)});
      add_path_hops(out, *diff.graph_b, *b.names, group.name, k + 2, shape.path, address);
    }
  }
}

}  // namespace

std::optional<ObjectLevel> diff_object_level(const Recording& recording, const DiffSide& a, const DiffSide& b,
                                             const WalkDiffOptions& options, bool fold,
                                             std::vector<std::string>& notes) {
  ObjectLevel out;
  auto diff = diff_walks(recording, a.view, b.view, options);
  // A damaged index is never answered from (its checksums are told with the blocks' last).
  const ErrorCode code = diff ? ErrorCode::Ok : diff.error().code;
  if ((b.view.blocks || a.view.objects) && code != ErrorCode::Ok && code != ErrorCode::InconsistentData &&
      code != ErrorCode::OutOfMemory)
    return std::nullopt;
  if (!diff && diff.error().code == ErrorCode::InconsistentData) {
    const bool reversed = a.walk.gc_pos > b.walk.gc_pos;
    notes.push_back(fmt::format("no object-level diff: {} between GC {} and GC {}", diff.error().detail,
                                reversed ? b.walk.gc_number : a.walk.gc_number,
                                reversed ? a.walk.gc_number : b.walk.gc_number));
    return out;
  }
  if (!diff) fail_on(a.selected.file, diff.error());
  out.roots = diff->roots;
  out.totals.add_row({"new", diff->new_count, diff->new_bytes});
  out.totals.add_row({"dead", diff->dead_count, diff->dead_bytes});
  out.totals.add_row({"surviving", diff->surviving_count, diff->surviving_bytes});
  out.totals.add_row({"missing", diff->missing_count, diff->missing_bytes});
  const uint64_t early = diff->reversed ? b.walk.gc_number : a.walk.gc_number;
  const uint64_t late = diff->reversed ? a.walk.gc_number : b.walk.gc_number;
  if (diff->reversed)
    notes.push_back(fmt::format("A (GC {}) is later than B (GC {}): objects were followed from B forward to A",
                                a.walk.gc_number, b.walk.gc_number));
  if (diff->missing_count)
    notes.push_back(fmt::format("{} objects of GC {} survived by the ranges but are not in GC {}'s heap walk",
                                diff->missing_count, early, late));
  if (!diff->new_groups.empty()) {
    const AddressOf address = diff_row_addresses(b, *diff->graph_b, *diff);
    const DiffHopNamer namer(b, recording, *diff->graph_b, address);
    add_group_rows(out, b.view, *diff, fold, namer, address);
    note_sampled_shares(*diff, notes);
    if (diff->graph_b->stats().unresolved_roots)
      notes.push_back(fmt::format("{} roots of GC {} point at no walked object", diff->graph_b->stats().unresolved_roots,
                                  b.walk.gc_number));
  }
  for (const auto& g : diff->dead_groups)
    out.dead_groups.add_row({g.name, g.count, g.bytes, a.address_of(g.members.front())});
  return out;
}

}  // namespace gcsnap::cli
