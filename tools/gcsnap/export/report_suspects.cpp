// The leak suspects of the page (report_suspects.hpp): gcsnap leaks' analysis, per suspect its
// series, what accumulated, the accumulation point and its path shapes.
#include "export/report_suspects.hpp"

#include <array>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "commands/leaks_bounded.hpp"
#include "errors/cli_error.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/path_fold.hpp"
#include "loading/leak_load.hpp"
#include "output/memory_text.hpp"

namespace gcsnap::cli {

std::string folded_path_json(const LoadedHeap& heap, const ShortestPathTree& bfs, uint64_t address, StringTable& strings,
                             bool fold) {
  auto node = heap.graph.find_object(address);
  if (!node || !bfs.is_reached(*node)) return "null";
  const RetentionPath path = bfs.path_to(*node);
  if (path.nodes.empty()) return "null";
  const std::vector<HopField> fields = heap.edge_namer().name_path(path.nodes);
  std::vector<std::string> texts;
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<uint32_t> keys;
  for (size_t h = 0; h < path.nodes.size(); ++h) {
    std::string field;
    if (h + 1 < path.nodes.size()) {
      const HopField& f = fields[h + 1];
      field = h < path.edges.size() && path.edges[h].kind == EdgeKind::DependentHandle ? "(ConditionalWeakTable value)"
              : f.kind == EdgeNameKind::Unknown                                       ? "?"
              : f.is_static                                                           ? f.text + " (static)"
                                                                                      : f.text;
    }
    texts.push_back(std::move(field));
    std::string key = std::string(heap.type_name(path.nodes[h])) + '\0' + texts.back();
    keys.push_back(ids.try_emplace(std::move(key), static_cast<uint32_t>(ids.size())).first->second);
  }
  auto folded = fold_repeats(keys, fold ? 4 : 0);
  if (!folded) fail_on(heap.sel.file, folded.error());
  const GraphRoot& root = heap.graph.roots()[path.root];
  std::string out = fmt::format("{{\"root\":{},\"hops\":[", strings.intern(std::string(root_kind_name(root.kind))));
  for (size_t k = 0; k < folded->size(); ++k) {
    const size_t h = folded->first[k];
    out += fmt::format("{}[{},{},{},\"{}\"]", k ? "," : "", strings.intern(std::string(heap.type_name(path.nodes[h]))),
                       texts[h].empty() ? -1 : static_cast<int64_t>(strings.intern(texts[h])), folded->counts[k],
                       format_address(heap.graph.address(path.nodes[h])));
  }
  return out + "]}";
}

namespace {

// The group's holder (gcsnap leaks' `held by`) as the page draws it; "null" when none was found.
std::string point_json(const AccumulationPoint& a, StringTable& strings) {
  if (!a.found) return "null";
  return fmt::format("{{\"type\":{},\"address\":\"{}\",\"via\":{},\"members\":{},\"retained\":{},"
                     "\"owner\":{},\"entries\":{}}}",
                     strings.intern(a.type), format_address(a.address),
                     a.via_array.empty() ? -1 : static_cast<int64_t>(strings.intern(a.via_array)), a.members_dominated,
                     a.retained_bytes, a.is_owner, a.entries);
}

// A group's counts, bytes and retained bytes at every walk of the series.
std::array<std::vector<uint64_t>, 3> series_of(const LeakSuspect& s) {
  std::array<std::vector<uint64_t>, 3> out;
  for (const LeakPoint& p : s.series) {
    out[0].push_back(p.count);
    out[1].push_back(p.bytes);
    out[2].push_back(p.retained_bytes);
  }
  return out;
}

// gcsnap leaks' bounded list (groups that grew, then held flat or slowed beside the leaks):
// per group its series, why it is not a suspect and its holder.
std::string bounded_json(const LoadedLeaks& leaks, StringTable& strings) {
  std::string out = "[";
  for (const BoundedGroup& b : leaks.report.bounded) {
    const LeakSuspect& s = b.group;
    const auto [counts, bytes, retained] = series_of(s);
    out += fmt::format("{}{{\"n\":{},\"c\":{},\"b\":{},\"r\":{},\"countGrowth\":{},\"flat\":{},\"why\":{},"
                       "\"point\":{}}}",
                       out.size() > 1 ? "," : "", strings.intern(s.type), json_array(counts), json_array(bytes),
                       json_array(retained), s.count_growth, b.kind == BoundedKind::HeldFlat,
                       strings.intern(bounded_reason(leaks, b)), point_json(s.accumulation, strings));
  }
  return out + "]";
}

}  // namespace

// HEAP and BFS: the last snapshot, where the suspects' examples are (their folded paths).
std::string suspects_json(const std::string& file, size_t walk_count, StringTable& strings, const ReportLimits& limits,
                          const LoadedHeap& heap, const ShortestPathTree& bfs) {
  LeakOptions options;
  options.top = limits.suspects;
  // Fewer walks than the analysis judges: say so without reading every walk again (on a
  // 2 M-object recording that costs most of the report's time).
  if (walk_count < options.min_walks)
    return fmt::format("{{\"walks\":[],\"groups\":0,\"tooFewWalks\":true,\"minWalks\":{},\"list\":[],"
                       "\"bounded\":[]}}",
                       options.min_walks);
  const auto leaks = load_leaks({file}, options);
  const LeakReport& r = leaks->report;
  std::vector<uint64_t> walks;
  for (const LeakWalk& w : r.walks) walks.push_back(w.gc_number);
  std::string out = fmt::format("{{\"walks\":{},\"groups\":{},\"tooFewWalks\":{},\"minWalks\":{},\"list\":[",
                                json_array(walks), r.groups, r.too_few_walks, options.min_walks);
  for (size_t k = 0; k < r.suspects.size(); ++k) {
    const LeakSuspect& s = r.suspects[k];
    const auto [counts, bytes, retained] = series_of(s);
    std::string shapes;
    for (const PathShape& shape : s.shapes) {
      std::vector<size_t> types;
      for (const std::string& t : shape.types) types.push_back(strings.intern(t));
      shapes += fmt::format("{}{{\"text\":{},\"t\":{},\"count\":{},\"minHops\":{},\"maxHops\":{}}}",
                            shapes.empty() ? "" : ",", strings.intern(describe_shape(shape)), json_array(types),
                            shape.count, shape.min_hops, shape.max_hops);
    }
    const std::string point = point_json(s.accumulation, strings);
    std::string holds;
    for (const HeldGroup& h : s.holds)
      holds += fmt::format("{}[{},{},{}]", holds.empty() ? "" : ",", strings.intern(h.type), h.accumulated_count,
                           h.accumulated_bytes);
    const bool same_walk = !r.walks.empty() && r.walks.back().gc_number == heap.sel.number();
    const std::string example_path =
        same_walk && s.example_address ? folded_path_json(heap, bfs, s.example_address, strings, limits.fold) : "null";
    out += fmt::format("{}{{\"n\":{},\"c\":{},\"b\":{},\"r\":{},\"accCount\":{},\"accBytes\":{},\"byIdentity\":{},"
                       "\"countGrowth\":{},\"retainedGrowth\":{},\"point\":{},\"shapes\":[{}],\"example\":\"{}\","
                       "\"holds\":[{}],\"examplePath\":{}}}",
                       k ? "," : "", strings.intern(s.type), json_array(counts), json_array(bytes), json_array(retained),
                       s.accumulated_count, s.accumulated_bytes, s.by_identity, s.count_growth, s.retained_growth, point,
                       shapes, format_address(s.example_address), holds, example_path);
  }
  // After the suspects: their strings keep the table positions they had before the bounded list.
  return out + "],\"bounded\":" + bounded_json(*leaks, strings) + "}";
}

}  // namespace gcsnap::cli
