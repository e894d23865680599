#pragma once
// The object-level tables of `gcsnap diff`: new / dead / surviving objects between two GCs of
// one recording, the largest groups of new objects by type, one retention path each. The
// diff itself is the library's (gcsnap/walk_diff.hpp); this file only makes rows.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loading/gc_select.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/heap_diff.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/walk_diff.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

/// One side of a diff: the selected GC, its heap walk decoded or its analysis index mapped,
/// and the view the diff reads either way. Not movable: the view points into it.
struct DiffSide {
  SelectedGc selected;  ///< B of a same-recording diff has no recording of its own
  /// The decoded walk; with an index, only its GC, roots, names and dependent-handle flag
  /// (no objects: the view's columns are the index's).
  HeapWalk walk;
  /// Set when the side answers from its analysis index (the graph, generations, histogram and
  /// shortest-path tree; its roots and names are moved into `walk`).
  std::shared_ptr<GcHeap> index;
  /// With an index read without its forward graph: its shortest-path tree, read with the side
  /// (view.paths) and telling the paths' hops (view.hop_kind).
  std::unique_ptr<IndexedPathTree> path_tree;
  /// The earlier GC of a diff from its index: its addresses and generations in vectors the diff
  /// takes for its object mapper (view.movable_*); an address is read back after from the
  /// index (`index`).
  IndexColumns columns;
  bool has_columns = false;
  /// The earlier GC's sizes and type ids, which the diff reads at the rows it needs (with
  /// `columns`: view.lookup).
  std::unique_ptr<ColumnLookup> lookup;
  /// The later GC of a same-recording diff from its index: its addresses and sizes, which the
  /// diff reads once in blocks (view.blocks) instead of holding them; an address is read back
  /// after from the index.
  std::unique_ptr<ColumnBlocks> blocks;
  /// The earlier GC of a diff from its index, the later GC right after it: its four node
  /// columns, which the diff reads once in blocks as it follows them (view.objects); an address
  /// is read back after from the index.
  std::unique_ptr<ObjectBlocks> objects;
  WalkView view;

  DiffSide() = default;
  DiffSide(const DiffSide&) = delete;
  DiffSide& operator=(const DiffSide&) = delete;

  size_t object_count() const noexcept { return view.object_count(); }
  /// Drop what load_diff_side loaded (the selection stays), to load the side again.
  void unload();
  /// Return object I's address at this GC (after a diff that took the columns, or with blocks,
  /// from the index's pieces); throws CliError naming the file.
  uint64_t address_of(size_t i) const;
  uint64_t total_bytes() const noexcept;
  /// Objects and bytes per type name, sorted by name (count_by_type); throws CliError.
  std::vector<TypeTotal> type_totals() const;
};

/// What load_diff_side reads of an index beyond PARTS.
enum class DiffLoad : uint8_t {
  Parts = 0,  ///< the parts alone
  PathTree,   ///< and the shortest-path tree, without the forward graph (IndexedPathTree)
  /// the shortest-path tree, and of the parts the type ids alone, with the addresses and sizes
  /// as blocks (DiffSide::blocks): B of a diff from an earlier A
  PathTreeBlocks,
  /// the addresses and generations into vectors a diff may take, the sizes and type ids as a
  /// lookup (the earlier GC): PARTS' node columns aside
  Movable,
  /// the four node columns as blocks (DiffSide::objects): the earlier GC, with the later GC
  /// right after it
  Streamed,
};

/// Load SIDE's GC (REC): from its analysis index when USE_INDEX and a valid one with what NEEDS
/// asks for exists (never built here), else by decoding the heap walk; LOAD says what more is
/// read of the index (an index whose extra arrays fail their checks is not used). Throws
/// CliError naming the file. FIELD_NAMES: a decoded walk is read with its slots (for
/// DiffHopNamer); without it the index's are not asked for either.
void load_diff_side(DiffSide& side, const Recording& rec, bool use_index, HeapNeeds needs,
                    DiffLoad load = DiffLoad::Parts, bool field_names = false);

struct ObjectLevel {
  /// Roots matched through the ranges (A's objects followed to B, or B's to A when A is the
  /// later GC); empty when the object-level diff could not be computed.
  std::optional<RootDiff> roots;
  Table totals = empty_totals();
  Table groups = empty_groups();
  Table dead_groups = empty_dead_groups();
  Table more_paths = empty_more_paths();  ///< the 2nd..Nth path shapes of each group
  /// Every hop, unfolded, of each group's paths (shape 1: `groups`' path; 2..: `more_paths`').
  Table path_hops = empty_path_hops();
  static Table empty_totals();
  static Table empty_groups();
  static Table empty_dead_groups();
  static Table empty_more_paths();
  static Table empty_path_hops();
};

class DiffHopNamer;

/// "[handle] -> Zoo.Cache.Orders (static) -> A ._items -> Node .Next ×4249 -> B": a retention path
/// as a diff group shows it (root kind and flags, then the type of every object with the field
/// out of it when NAMER names it, a static's name in place of the statics array; hops of one
/// type and field in a row folded with their count; "(not reachable from a strong root)" for an
/// empty path). FOLD false: every hop. NAMER null: types only.
std::string diff_path_text(const HeapGraph& graph, const NameTable& names, const RetentionPath& path, bool fold = true,
                           const DiffHopNamer* namer = nullptr);

/// Add one row per hop of PATH (shape SHAPE of group TYPE) to OUT.path_hops; ADDRESS tells a
/// hop's address (a DiffHopNamer's AddressOf).
void add_path_hops(ObjectLevel& out, const HeapGraph& graph, const NameTable& names, const std::string& type,
                   size_t shape, const RetentionPath& path, const std::function<uint64_t(NodeIndex)>& address);

/// The object-level tables of a and b (same recording, either order) from the library's
/// diff_walks (options: top groups, path shapes, type filter). Problems that only limit the
/// answer (a gap in the ranges) become notes; read errors throw. Nullopt when B's columns,
/// or A's objects, read in blocks (DiffLoad::PathTreeBlocks, DiffLoad::Streamed), failed their checks: the caller loads
/// both sides again from the recording (A's columns went to the diff) and asks again.
std::optional<ObjectLevel> diff_object_level(const Recording& recording, const DiffSide& a, const DiffSide& b,
                              const WalkDiffOptions& options, bool fold, std::vector<std::string>& notes);

}  // namespace gcsnap::cli
