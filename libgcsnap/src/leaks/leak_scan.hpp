#pragma once
// One heap walk of a leak-suspect series (leak_suspects.hpp): each reachable object's group
// (its collapsed path shape, interned in a ShapeTrie), its birth walk through object
// identity, and the group's count, bytes and retained bytes at this walk.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/shape_trie.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/leak_suspects.hpp"
#include "gcsnap/walk_diff.hpp"

namespace gcsnap::leaks {

inline constexpr uint32_t kNoBirth = 0xFFFFFFFFu;

/// Type names interned across recordings (type ids are per recording).
class TypeInterner {
 public:
  /// Forget the ids of the previous recording.
  void start_recording() { by_id_.clear(); }
  uint32_t intern(const NameTable& names, uint32_t type_id);
  const std::string& name(uint32_t global) const { return names_[global]; }
  size_t size() const noexcept { return names_.size(); }

 private:
  std::map<std::string, uint32_t, std::less<>> ids_;
  std::vector<std::string> names_;
  std::unordered_map<uint32_t, uint32_t> by_id_;
};

/// What the analysis keeps of one walk: the next walk matches its objects, the last walk's
/// is where the suspects' points and examples are found. Held by unique_ptr (the heap is not
/// movable). The graph and the dominator tree come from the GC's analysis index when a valid
/// one exists (format-spec.md §12), else from the decoded walk.
struct ScannedWalk {
  size_t gc_pos = 0;
  std::unique_ptr<GcHeap> heap;             ///< null once slim()
  const DominatorTree* dominators = nullptr;  ///< the heap's (index's or computed; see open_walk_graph)
  std::vector<uint32_t> shape;  ///< per node; ShapeTrie::kNone when not reachable
  std::vector<uint32_t> hops;   ///< uncollapsed path length per reachable node
  std::vector<uint32_t> birth;  ///< walk index at which each object was first seen
  std::vector<uint32_t> type;   ///< global type id per node
  /// After slim(): what the next walk's identity needs (else empty: the graph's are used).
  std::vector<uint64_t> kept_addresses, kept_sizes;
  std::vector<Generation> kept_generations;

  const HeapGraph& graph() const noexcept { return heap->graph; }
  const DominatorTree& dom() const noexcept { return *dominators; }
  const NameTable& names() const noexcept { return heap->names; }
  std::span<const uint64_t> addresses() const noexcept { return heap ? heap->graph.addresses() : kept_addresses; }
  std::span<const uint64_t> sizes() const noexcept { return heap ? heap->graph.sizes() : kept_sizes; }
  std::span<const Generation> generations() const noexcept { return heap ? heap->generations : kept_generations; }
  /// Keep only what the next walk's identity needs (addresses, sizes, generations, births):
  /// about 21 B per object instead of the whole heap. Errors: OutOfMemory (std::bad_alloc).
  void slim();
  /// A computed dominator tree kept through release_heap (reopen_walk does not compute it again).
  std::optional<DominatorTree> kept_dominators;

  /// Free the heap (reopen_walk opens it again) and the hops; keep shapes, births and types,
  /// and a dominator tree that was computed, not the index's: at 10 M objects it is 16 B an
  /// object, where finding it again cost 3 % of `leaks --no-cache`.
  void release_heap() {
    if (heap && dominators && (!heap->indexed_dominators || dominators != &*heap->indexed_dominators))
      kept_dominators = *dominators;
    dominators = nullptr;
    heap.reset();
    std::vector<uint32_t>().swap(hops);  // not `= {}`, which keeps the capacity
  }
};

/// Per type (global id): the count and bytes at every walk.
struct SeriesTable {
  size_t walks = 0;
  std::vector<std::vector<uint64_t>> type_counts, type_bytes;  ///< by global type id
};

/// Read walk WALK_INDEX (GC gc_pos of RECORDING, opened from PATH; an empty PATH: decode,
/// read no index) for the first pass of the series: its objects, their births (PREVIOUS: the
/// walk before in the same recording, to match objects through the ranges, or null) and the
/// types' points in SERIES. FULL: also the graph's edges (the last walk, where the suspects are
/// judged; find_walk_dominators gives it its tree); else only the objects are read where an
/// index gives them. Sets *identity when PREVIOUS was matched, and then NEXT_OF_PREVIOUS (if not
/// null) to each of PREVIOUS' objects' index in this walk (kNoBirth: it died).
Result<std::unique_ptr<ScannedWalk>> scan_walk(const Recording& recording, const std::string& path, size_t gc_pos,
                                               uint32_t walk_index, const ScannedWalk* previous, bool* identity,
                                               TypeInterner& types, SeriesTable& series, bool full,
                                               bool include_weak, std::vector<uint32_t>* next_of_previous = nullptr);

/// Give S, scanned with FULL, its dominator tree (the index's, else computed with the reverse
/// edges it needs). Called once the walk before is freed: computed while that walk's objects
/// and the maps between them were held, the tree's arrays raised the peak of `leaks`.
/// Errors: those of GcHeap::find_dominators, OutOfMemory.
Status find_walk_dominators(ScannedWalk& s, bool include_weak);

/// Read walk GC_POS of RECORDING again for the second pass: its graph (successors), global
/// types and, from its index only, its dominator tree (else `dominators` stays null); no
/// births. Errors: as scan_walk.
Result<std::unique_ptr<ScannedWalk>> open_walk_graph(const Recording& recording, const std::string& path, size_t gc_pos,
                                                     TypeInterner& types, bool include_weak);

/// Open the heap of S (the last walk, released to spare its memory while the earlier walks are
/// read) again as scan_walk with FULL did; its shapes, births and types are kept.
Status reopen_walk(ScannedWalk& s, const Recording& recording, const std::string& path, bool include_weak);

/// Give every reachable object of S its collapsed path shape in TRIE (S.shape, S.hops):
/// breadth-first from the roots in root_priority order, as retention paths are found. WITH_HOPS
/// false leaves S.hops empty (only the last walk's facts read them).
void assign_shapes(ScannedWalk& s, ShapeTrie& trie, bool include_weak, bool with_hops = true);

/// Give every reachable object of S its shape as assign_shapes with strong roots does, from
/// the shortest-path tree of S's analysis index (S.hops left empty). False, with S.shape to be
/// assigned again, when S has no such tree or it is not one (a forged index); TRIE may then
/// hold shapes no object has.
bool assign_shapes_from_tree(ScannedWalk& s, ShapeTrie& trie);

}  // namespace gcsnap::leaks
