// The HELD BY cells of `dominators --by type` (type_holder_cells.hpp): find_type_holders'
// holders, then the two corrections the table makes to them, a holder pattern's text and an
// owner that is one member's child. Here, not in find_type_holders, so that the leaks' holders
// keep their rule; in the library, so that the analysis index build keeps the same cells.
#include "gcsnap/type_holder_cells.hpp"

#include <algorithm>
#include <new>
#include <optional>
#include <utility>

#include "gcsnap/group_holder.hpp"
#include "gcsnap/holder_patterns.hpp"

namespace gcsnap {

namespace {

// Type id -> 1 + its first position in TYPES among those WANTED(position) accepts; 0: none.
template <typename Wanted>
std::vector<uint32_t> rows_by_type(std::span<const uint32_t> types, Wanted wanted) {
  std::vector<uint32_t> position;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!wanted(i)) continue;
    if (types[i] >= position.size()) position.resize(size_t{types[i]} + 1, 0);
    if (position[types[i]] == 0) position[types[i]] = static_cast<uint32_t>(i + 1);
  }
  return position;
}

// Per position in TYPES whose holder is an owner: how many of the type's objects reference
// that owner back (one pass over the nodes and their edges for all of them).
std::vector<std::pair<uint64_t, uint64_t>> owner_back_refs(const HeapGraph& graph, std::span<const uint32_t> types,
                                                           const std::vector<GroupHolder>& holders) {
  const auto position = rows_by_type(types, [&](size_t i) { return holders[i].found && holders[i].is_owner; });
  std::vector<std::pair<uint64_t, uint64_t>> counts(types.size());  // members, back references
  if (position.empty()) return counts;
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const uint32_t t = graph.type_id(v);
    if (t >= position.size() || position[t] == 0) continue;
    auto& [members, back] = counts[position[t] - 1];
    ++members;
    const NodeIndex owner = holders[position[t] - 1].node;
    for (const NodeIndex w : graph.successors(v))
      if (w == owner) {
        ++back;
        break;
      }
  }
  return counts;
}

// Rows of widest_referrers below this many objects are "small": only they may be held by an
// object of fewer than kSmallRow / 2 references, whose edges are then looked up in a bitset.
constexpr uint64_t kSmallRow = 256;

// A bit per node of GRAPH: set when its type's row (POSITION, as rows_by_type's) is marked in ROWS.
std::vector<uint64_t> objects_bitset(const HeapGraph& graph, const std::vector<uint32_t>& position,
                                     const std::vector<uint8_t>& rows) {
  std::vector<uint64_t> bits((graph.node_count() + 63) / 64, 0);
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const uint32_t t = graph.type_id(v);
    if (t < position.size() && position[t] != 0 && rows[position[t] - 1]) bits[v / 64] |= uint64_t{1} << (v % 64);
  }
  return bits;
}

// For each position of TYPES that WANTED marks: the object of another type with edges to more
// than half of the type's objects (BACK_REFS' member counts; the static array of the timer
// queues), or kNoNode. One pass over the nodes for all of them; an object with too few
// references to hold half of any wanted row is skipped, and one that can hold half of a small
// row only has its edges tested against a bitset of those rows' objects: reading every edge's
// type id, a cache miss each, was most of the time at 10 M objects. A row's answer does not
// depend on the other rows (the bounds only skip objects that cannot hold it).
std::vector<NodeIndex> widest_referrers(const HeapGraph& graph, std::span<const uint32_t> types,
                                        const std::vector<uint8_t>& wanted,
                                        const std::vector<std::pair<uint64_t, uint64_t>>& back_refs) {
  std::vector<NodeIndex> widest(types.size(), kNoNode);
  const auto position = rows_by_type(types, [&](size_t i) { return wanted[i] != 0; });
  if (position.empty()) return widest;
  // An object of D references makes at most D edges into a row: it can hold a row of N
  // objects only when 2 D > N. The rows' smallest N bounds which objects count at all.
  uint64_t fewest = UINT64_MAX;
  std::vector<uint8_t> small(types.size(), 0);
  for (size_t i = 0; i < types.size(); ++i) {
    if (!wanted[i] || position[types[i]] != i + 1) continue;
    fewest = std::min(fewest, back_refs[i].first);
    small[i] = back_refs[i].first < kSmallRow;
  }
  const auto small_objects = fewest < kSmallRow ? objects_bitset(graph, position, small) : std::vector<uint64_t>{};
  std::vector<uint64_t> most(types.size(), 0), into(types.size(), 0);
  std::vector<uint32_t> touched;  // the rows V has edges into
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const auto out = graph.successors(v);
    if (2 * uint64_t{out.size()} <= fewest) continue;
    const bool any_row = 2 * uint64_t{out.size()} > kSmallRow;  // else only small rows
    const uint32_t own = graph.type_id(v);
    for (const NodeIndex w : out) {
      if (!any_row && (small_objects[w / 64] >> (w % 64) & 1) == 0) continue;
      const uint32_t t = graph.type_id(w);
      if (t == own || t >= position.size() || position[t] == 0) continue;
      if (into[position[t] - 1]++ == 0) touched.push_back(position[t] - 1);
    }
    for (const uint32_t row : touched) {
      if (into[row] > most[row]) most[row] = into[row], widest[row] = v;
      into[row] = 0;
    }
    touched.clear();
  }
  for (size_t i = 0; i < types.size(); ++i)
    if (2 * most[i] <= back_refs[i].first) widest[i] = kNoNode;
  return widest;
}

// "Ns.ConfigWatcher.Changed (static event) -> System.EventHandler -> Ns.Subscriber.OnChanged":
// the holder, its pattern and what it keeps (as `leaks` writes it, pattern_holder_text).
std::string pattern_text(const HolderPatternMatch& m, const PatternTarget& t) {
  std::string text = m.holder + " (" + std::string(holder_pattern_name(m.pattern)) + ")";
  if (t.call.found) text += " -> " + t.call.delegate_type;
  const std::string& method = !t.async_method.empty() ? t.async_method : t.call.method;
  if (!method.empty()) text += " -> " + method;
  else if (!t.target_type.empty()) text += " -> " + t.target_type;
  if (!t.owner_field.empty()) text += "; kept in " + t.owner_field;
  return text;
}

// NODE's holder pattern text when its path has a pattern whose structure hop comes at or
// before HOLDER on the path; "" otherwise.
std::string pattern_through(const TypeHolderInput& in, const HolderPathSources& sources, NodeIndex node,
                            NodeIndex holder) {
  if (!sources.tree->is_reached(node)) return {};
  const RetentionPath path = sources.tree->path_to(node);
  if (path.nodes.empty()) return {};
  const std::vector<HopField> fields = sources.namer->name_path(path.nodes);
  std::vector<std::string_view> types;
  types.reserve(path.nodes.size());
  for (const NodeIndex v : path.nodes) types.push_back(in.names.type_name(in.graph.type_id(v)));
  const HolderPatternMatch match = match_holder_pattern(types, fields);
  if (match.pattern == HolderPattern::None) return {};
  const auto from = path.nodes.begin() + static_cast<std::ptrdiff_t>(match.structure_hop);
  if (std::find(from, path.nodes.end(), holder) == path.nodes.end()) return {};
  const PatternContext context{in.graph, in.names, *sources.namer, in.delegates};
  return pattern_text(match, describe_pattern_target(context, match.pattern, {from, path.nodes.end()}));
}

// Up to kPatternTries of each type's newest instances (by address, newest first) are tried
// against the holder patterns; "" where no pattern holds. The path sources are asked for at
// the first try.
constexpr size_t kPatternTries = 8;
Result<std::vector<std::string>> pattern_holders(const TypeHolderInput& in, std::span<const uint32_t> types,
                                                 const std::vector<GroupHolder>& holders) {
  std::vector<std::string> named(types.size());
  std::vector<std::vector<NodeIndex>> newest(types.size());  // up to kPatternTries, newest first
  const auto position = rows_by_type(types, [&](size_t i) { return holders[i].found; });
  const auto newer = [&](NodeIndex x, NodeIndex y) { return in.graph.address(x) > in.graph.address(y); };
  for (NodeIndex v = 0; v < in.graph.node_count(); ++v) {
    const uint32_t t = in.graph.type_id(v);
    if (t >= position.size() || position[t] == 0) continue;
    auto& kept = newest[position[t] - 1];  // a min-heap of the newest by address
    if (kept.size() < kPatternTries) {
      kept.push_back(v);
      std::push_heap(kept.begin(), kept.end(), newer);
    } else if (newer(v, kept.front())) {
      std::pop_heap(kept.begin(), kept.end(), newer);
      kept.back() = v;
      std::push_heap(kept.begin(), kept.end(), newer);
    }
  }
  std::optional<HolderPathSources> sources;
  for (size_t i = 0; i < types.size(); ++i) {
    auto& kept = newest[i];
    std::sort(kept.begin(), kept.end(), newer);
    for (const NodeIndex v : kept) {
      if (!sources) {
        auto found = in.path_sources();
        if (!found) return found.error();
        if (!found->tree || !found->namer) return make_error(ErrorCode::InvalidArgument, "no shortest-path tree");
        sources = *found;
      }
      named[i] = pattern_through(in, *sources, v, holders[i].node);
      if (!named[i].empty()) break;
    }
  }
  return named;
}

// The cells of HOLDER (found, not named by a pattern, not replaced).
TypeHolderCell holder_cell(const TypeHolderInput& in, const GroupHolder& holder) {
  const auto name = [&](NodeIndex v) { return std::string(in.names.type_name(in.graph.type_id(v))); };
  std::string text = name(holder.node);
  if (holder.is_owner) text += " (owner)";
  else if (holder.via_array != kNoNode) text += " (via " + name(holder.via_array) + ")";
  return TypeHolderCell{std::move(text), true, in.graph.address(holder.node)};
}

}  // namespace

Result<std::vector<TypeHolderCell>> describe_type_holders(const TypeHolderInput& in,
                                                          std::span<const uint32_t> types) try {
  auto found = find_type_holders(in.graph, in.dominators, types, array_type_flags(in.graph, in.names));
  if (!found) return found.error();
  const std::vector<GroupHolder>& holders = *found;
  auto named = pattern_holders(in, types, holders);
  if (!named) return named.error();
  const auto back_refs = owner_back_refs(in.graph, types, holders);
  // An owner that most of the objects do not reference back is one member's child (a
  // TimerQueue's first TimerQueueTimer references its queue): the object with edges to most
  // of them (the static array of the queues) holds them instead, or none is named.
  std::vector<uint8_t> unowned(holders.size(), 0);
  for (size_t i = 0; i < holders.size(); ++i)
    unowned[i] =
        holders[i].found && (*named)[i].empty() && holders[i].is_owner && 2 * back_refs[i].second <= back_refs[i].first;
  const auto widest = widest_referrers(in.graph, types, unowned, back_refs);
  std::vector<TypeHolderCell> cells(holders.size());
  for (size_t i = 0; i < holders.size(); ++i) {
    if (!holders[i].found) continue;
    if (!(*named)[i].empty()) {
      cells[i].text = std::move((*named)[i]);
    } else if (unowned[i]) {
      if (widest[i] != kNoNode)
        cells[i] = {std::string(in.names.type_name(in.graph.type_id(widest[i]))), true, in.graph.address(widest[i])};
    } else {
      cells[i] = holder_cell(in, holders[i]);
    }
  }
  return cells;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "describing the holders of types");
}

}  // namespace gcsnap
