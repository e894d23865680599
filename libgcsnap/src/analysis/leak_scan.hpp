#pragma once
// One heap walk of a leak-suspect series (leak_suspects.hpp): each reachable object's group
// (its collapsed path shape, interned in a ShapeTrie), its birth walk through object
// identity, and the group's count, bytes and retained bytes at this walk.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
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
  const DominatorTree* dominators = nullptr;  ///< the heap's (index's or computed)
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
};

/// One group's point at one walk, as the walks are scanned (only groups with members).
struct WalkPoint {
  uint32_t shape = 0;
  uint32_t count = 0;
  uint64_t bytes = 0, retained_bytes = 0;
};

/// Per group (shape id) and per type (global id): the series being filled. While the walks
/// are scanned a walk keeps only the groups it has members of (most shapes live in one or two
/// walks); materialize() then gives full series to the groups of the last walk, the only ones
/// that can be suspects (a suspect's count ends above where it started).
struct SeriesTable {
  size_t walks = 0;
  std::vector<std::vector<WalkPoint>> by_walk;  ///< per walk, by first appearance
  std::vector<uint8_t> seen;                    ///< per shape: it had members at some walk
  /// After materialize(): by shape id, empty unless the shape has members at the last walk.
  std::vector<std::vector<LeakPoint>> groups;
  uint64_t not_materialized = 0;  ///< groups seen but absent at the last walk (judged, never suspects)
  std::vector<std::vector<uint64_t>> type_counts, type_bytes;  ///< by global type id

  /// Fill `groups` for the SHAPES of the trie from by_walk, which it frees.
  void materialize(size_t shapes);
};

/// Read walk WALK_INDEX (GC gc_pos of RECORDING, opened from PATH; an empty PATH: decode,
/// read no index), build its graph, shapes, dominator tree and births (PREVIOUS: the walk
/// before in the same recording, to match objects through the ranges, or null), and add its
/// points to SERIES. Sets *identity when PREVIOUS was matched.
Result<std::unique_ptr<ScannedWalk>> scan_walk(const Recording& recording, const std::string& path, size_t gc_pos,
                                               uint32_t walk_index,
                                               const ScannedWalk* previous, bool* identity, ShapeTrie& trie,
                                               TypeInterner& types, SeriesTable& series, bool include_weak);

}  // namespace gcsnap::leaks
