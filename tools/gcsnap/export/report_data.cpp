#include "export/report_data.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "output/cli_error.hpp"
#include "commands/gc_select.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/type_histogram.hpp"
#include "commands/heap_load.hpp"
#include "commands/leak_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

// Strings the page looks up by index (type names, field names), each written once.
class StringTable {
 public:
  size_t intern(std::string_view text) {
    auto [it, added] = index_.try_emplace(std::string(text), order_.size());
    if (added) order_.push_back(&it->first);
    return it->second;
  }
  std::string json() const {
    std::string out = "[";
    for (size_t i = 0; i < order_.size(); ++i) {
      if (i) out += ',';
      out += '"';
      out += json_escape(*order_[i]);
      out += '"';
    }
    return out + "]";
  }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<const std::string*> order_;
};

template <typename T>
std::string json_array(const std::vector<T>& values) {
  return fmt::format("[{}]", fmt::join(values, ","));
}

// Per GC: the timeline row (format-spec.md §6.2 facts, the generation ranges in use, the
// surviving and moved bytes of the ranges).
std::string timeline_json(const Recording& rec, const std::string& file) {
  std::string out = "[";
  const auto& gcs = rec.gcs();
  const uint64_t t0 = gcs.empty() ? 0 : gcs.front().info.start_time_ns;
  for (size_t i = 0; i < gcs.size(); ++i) {
    const GcEntry& e = gcs[i];
    auto bounds = rec.read_generation_bounds(i);
    if (!bounds) fail_on(file, bounds.error());
    std::array<uint64_t, 5> heap{};
    for (const GenerationRange& r : *bounds)
      if (static_cast<size_t>(r.generation) < heap.size()) heap[static_cast<size_t>(r.generation)] += r.length;
    auto ranges = rec.read_ranges(i);
    if (!ranges) fail_on(file, ranges.error());
    uint64_t surviving = 0, moved = 0;
    for (uint64_t l : ranges->surviving_lengths) surviving += l;
    for (uint64_t l : ranges->moved_lengths) moved += l;
    const double start_ms = e.info.start_time_ns >= t0 ? static_cast<double>(e.info.start_time_ns - t0) / 1e6 : 0.0;
    const double pause_ms = e.info.end_time_ns >= e.info.start_time_ns
                                ? static_cast<double>(e.info.end_time_ns - e.info.start_time_ns) / 1e6 : 0.0;
    out += fmt::format("{}[{},{},{},{},{:.3f},{:.3f},{},{},{},{},{},{},{},{},{}]", i ? "," : "", e.info.gc_number,
                       e.info.condemned_generation(), e.info.reason == GcReason::Induced ? 1 : 0,
                       e.info.compacted ? 1 : 0, start_ms, pause_ms, heap[0], heap[1], heap[2], heap[3], heap[4],
                       surviving, moved, e.has_heap_walk() ? 1 : 0, e.object_count);
  }
  return out + "]";
}

struct TypeSeries {
  std::vector<uint64_t> count, bytes;
};

// The leak suspects of the recording (gcsnap leaks' analysis): per suspect its series, what
// accumulated, the accumulation point and its path shapes.
std::string suspects_json(const std::string& file, size_t walk_count, StringTable& strings, const ReportLimits& limits) {
  LeakOptions options;
  options.top = limits.suspects;
  // Fewer walks than the analysis judges: say so without reading every walk again (on a
  // 2 M-object recording that costs most of the report's time).
  if (walk_count < options.min_walks)
    return fmt::format("{{\"walks\":[],\"groups\":0,\"tooFewWalks\":true,\"minWalks\":{},\"list\":[]}}",
                       options.min_walks);
  const auto leaks = load_leaks({file}, options);
  const LeakReport& r = leaks->report;
  std::vector<uint64_t> walks;
  for (const LeakWalk& w : r.walks) walks.push_back(w.gc_number);
  std::string out = fmt::format("{{\"walks\":{},\"groups\":{},\"tooFewWalks\":{},\"minWalks\":{},\"list\":[",
                                json_array(walks), r.groups, r.too_few_walks, options.min_walks);
  for (size_t k = 0; k < r.suspects.size(); ++k) {
    const LeakSuspect& s = r.suspects[k];
    std::vector<uint64_t> counts, bytes, retained;
    for (const LeakPoint& p : s.series) {
      counts.push_back(p.count);
      bytes.push_back(p.bytes);
      retained.push_back(p.retained_bytes);
    }
    std::string shapes;
    for (const PathShape& shape : s.shapes) {
      std::vector<size_t> types;
      for (const std::string& t : shape.types) types.push_back(strings.intern(t));
      shapes += fmt::format("{}{{\"text\":{},\"t\":{},\"count\":{},\"minHops\":{},\"maxHops\":{}}}",
                            shapes.empty() ? "" : ",", strings.intern(describe_shape(shape)), json_array(types),
                            shape.count, shape.min_hops, shape.max_hops);
    }
    const AccumulationPoint& a = s.accumulation;
    const std::string point = a.found ? fmt::format("{{\"type\":{},\"address\":\"{}\",\"via\":{},\"members\":{},\"retained\":{}}}",
                                                    strings.intern(a.type), format_address(a.address),
                                                    a.via_array.empty() ? -1 : static_cast<int64_t>(strings.intern(a.via_array)),
                                                    a.members_dominated, a.retained_bytes)
                                      : "null";
    out += fmt::format("{}{{\"n\":{},\"c\":{},\"b\":{},\"r\":{},\"accCount\":{},\"accBytes\":{},\"byIdentity\":{},"
                       "\"countGrowth\":{},\"retainedGrowth\":{},\"point\":{},\"shapes\":[{}],\"example\":\"{}\"}}",
                       k ? "," : "", strings.intern(s.type), json_array(counts), json_array(bytes), json_array(retained),
                       s.accumulated_count, s.accumulated_bytes, s.by_identity, s.count_growth, s.retained_growth, point,
                       shapes, format_address(s.example_address));
  }
  return out + "]}";
}

}  // namespace

std::string build_report_data(const std::string& file, const ReportLimits& limits) {
  auto recording = open_recording(file);
  const Recording& rec = *recording;
  StringTable strings;
  std::string out = fmt::format("{{\"file\":\"{}\",\"end\":\"{}\",\"gcs\":{}", json_escape(file),
                                file_end_name(rec.end()), timeline_json(rec, file));
  std::vector<size_t> snapshots;
  for (size_t i = 0; i < rec.gcs().size(); ++i)
    if (rec.gcs()[i].has_heap_walk()) snapshots.push_back(i);
  if (snapshots.empty()) return out + ",\"snaps\":[]}";

  // Count and shallow bytes per type at every snapshot (type ids are the recording's: stable).
  std::vector<TypeSeries> series;  // by type id
  std::vector<uint64_t> snap_counts, snap_bytes;
  for (size_t s = 0; s < snapshots.size(); ++s) {
    auto objects = rec.read_objects(snapshots[s]);
    if (!objects) fail_on(file, objects.error());
    uint64_t bytes = 0;
    for (size_t k = 0; k < objects->size(); ++k) {
      const uint32_t type = objects->type_ids[k];
      if (type >= series.size()) series.resize(type + 1);
      TypeSeries& t = series[type];
      if (t.count.size() < snapshots.size()) {
        t.count.resize(snapshots.size(), 0);
        t.bytes.resize(snapshots.size(), 0);
      }
      ++t.count[s];
      t.bytes[s] += objects->sizes[k];
      bytes += objects->sizes[k];
    }
    snap_counts.push_back(objects->size());
    snap_bytes.push_back(bytes);
  }

  // The last snapshot: graph, dominators, retained sizes per type, and paths.
  const auto heap = load_heap(file, rec.gcs()[snapshots.back()].info.gc_number, true, true);
  const DominatorTree* tree = &heap->dominators(false);
  auto histogram = heap->type_histogram(false, TypeHistogramOptions{TypeOrder::RetainedBytes, 0});

  // Types carried: the largest by retained bytes at the last snapshot, then the largest by
  // shallow bytes at any snapshot (a type that grew and shrank again), up to limits.types.
  std::vector<uint32_t> carried;
  std::vector<bool> is_carried(series.size(), false);
  auto carry = [&](uint32_t type) {
    if (carried.size() >= limits.types || type >= series.size() || is_carried[type] || series[type].count.empty()) return;
    is_carried[type] = true;
    carried.push_back(type);
  };
  for (size_t k = 0; k < histogram.size() && carried.size() < limits.types / 2; ++k) carry(histogram[k].type_id);
  std::vector<std::pair<uint64_t, uint32_t>> by_peak;
  for (uint32_t type = 0; type < series.size(); ++type)
    if (!series[type].bytes.empty())
      by_peak.emplace_back(*std::max_element(series[type].bytes.begin(), series[type].bytes.end()), type);
  std::sort(by_peak.begin(), by_peak.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (auto& [peak, type] : by_peak) carry(type);
  std::unordered_map<uint32_t, const TypeStats*> last_stats;
  for (const TypeStats& t : histogram) last_stats[t.type_id] = &t;

  std::vector<uint64_t> other_count(snapshots.size(), 0), other_bytes(snapshots.size(), 0);
  for (uint32_t type = 0; type < series.size(); ++type) {
    if (is_carried[type] || series[type].count.empty()) continue;
    for (size_t s = 0; s < snapshots.size(); ++s) {
      other_count[s] += series[type].count[s];
      other_bytes[s] += series[type].bytes[s];
    }
  }
  std::vector<uint64_t> snap_numbers;
  for (size_t i : snapshots) snap_numbers.push_back(rec.gcs()[i].info.gc_number);
  out += fmt::format(",\"snaps\":{},\"snapCount\":{},\"snapBytes\":{},\"typeTotal\":{}", json_array(snap_numbers),
                     json_array(snap_counts), json_array(snap_bytes), by_peak.size());
  out += ",\"types\":[";
  for (size_t k = 0; k < carried.size(); ++k) {
    const uint32_t type = carried[k];
    const auto it = last_stats.find(type);
    const TypeStats* last = it == last_stats.end() ? nullptr : it->second;
    out += fmt::format("{}{{\"n\":{},\"c\":{},\"b\":{},\"r\":{},\"u\":{}}}", k ? "," : "",
                       strings.intern(heap->names.type_name(type)), json_array(series[type].count),
                       json_array(series[type].bytes), last ? last->retained_bytes : 0,
                       last ? last->unreachable_count : 0);
  }
  out += fmt::format("],\"other\":{{\"c\":{},\"b\":{}}}", json_array(other_count), json_array(other_bytes));

  // The dominator tree, pruned to the nodes with the largest retained sizes and closed under
  // their dominators, so that every node carried has its parent carried (or the virtual root).
  const HeapGraph& graph = heap->graph;
  std::vector<NodeIndex> chosen = tree->top_retainers(limits.dominator_nodes);
  std::unordered_map<NodeIndex, size_t> position;
  for (NodeIndex v : chosen) position.emplace(v, 0);
  for (size_t k = 0; k < chosen.size(); ++k)
    for (NodeIndex p = tree->immediate_dominator(chosen[k]); p != kVirtualRoot && p != kNoNode; p = tree->immediate_dominator(p))
      if (position.emplace(p, 0).second) chosen.push_back(p);
  // Preorder-like order: by depth, then retained size, so parents come first.
  std::vector<std::pair<uint32_t, NodeIndex>> ordered;
  for (NodeIndex v : chosen) ordered.emplace_back(tree->depth(v), v);
  std::sort(ordered.begin(), ordered.end(), [&](auto& a, auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return tree->retained_size(a.second) > tree->retained_size(b.second);
  });
  for (size_t k = 0; k < ordered.size(); ++k) position[ordered[k].second] = k;

  // Retention paths (shortest from a strong root, field names where recorded) of the largest
  // dominator nodes, as one tree: the union of the paths, each object once.
  const ShortestPathTree* bfs = value_or_fail(heap->find_path_tree(), file);
  const EdgeNamer namer = heap->edge_namer();
  std::unordered_map<NodeIndex, size_t> path_position;
  std::string path_nodes;
  size_t path_count = 0;
  std::vector<int64_t> node_path(ordered.size(), -1);
  std::vector<NodeIndex> by_retained;
  for (auto& [depth, v] : ordered) by_retained.push_back(v);
  std::stable_sort(by_retained.begin(), by_retained.end(),
                   [&](NodeIndex a, NodeIndex b) { return tree->retained_size(a) > tree->retained_size(b); });
  if (by_retained.size() > limits.paths) by_retained.resize(limits.paths);
  for (NodeIndex v : by_retained) {
    const RetentionPath path = bfs->path_to(v);
    if (path.nodes.empty()) continue;
    int64_t parent = -1;
    for (size_t h = 0; h < path.nodes.size(); ++h) {
      const NodeIndex u = path.nodes[h];
      auto [it, added] = path_position.try_emplace(u, path_count);
      if (added) {
        std::string root, field;
        if (h == 0) {
          const GraphRoot& r = graph.roots()[path.root];
          root = std::string(root_kind_name(r.kind));
          if (r.kind == RootKind::Stack)
            if (const MethodRecord* m = heap->names.find_method(r.root_id)) root += " " + std::string(m->name);
        } else if (h - 1 < path.edges.size() && path.edges[h - 1].kind == EdgeKind::DependentHandle) {
          field = "(ConditionalWeakTable value)";
        } else {
          const HopField f = namer.name_edge(path.nodes[h - 1], u);
          field = f.kind == EdgeNameKind::Unknown ? "" : (f.is_static ? f.text + " (static)" : f.text);
        }
        path_nodes += fmt::format("{}[{},{},\"{}\",{},{},{}]", path_count ? "," : "", parent,
                                  strings.intern(heap->type_name(u)), format_address(graph.address(u)),
                                  graph.object_size(u), field.empty() ? -1 : static_cast<int64_t>(strings.intern(field)),
                                  root.empty() ? -1 : static_cast<int64_t>(strings.intern(root)));
        ++path_count;
      }
      parent = static_cast<int64_t>(it->second);
    }
    node_path[position[v]] = parent;
  }

  out += fmt::format(",\"dom\":{{\"gc\":{},\"reachBytes\":{},\"reachCount\":{},\"unreachBytes\":{},\"unreachCount\":{},"
                     "\"nodes\":[",
                     heap->sel.number(), tree->reachable_bytes(), tree->reachable_count(), tree->unreachable_bytes(),
                     tree->unreachable_count());
  for (size_t k = 0; k < ordered.size(); ++k) {
    const NodeIndex v = ordered[k].second;
    const NodeIndex p = tree->immediate_dominator(v);
    const int64_t parent = p == kVirtualRoot ? -1 : static_cast<int64_t>(position.at(p));
    out += fmt::format("{}[{},{},\"{}\",{},{},{}]", k ? "," : "", parent, strings.intern(heap->type_name(v)),
                       format_address(graph.address(v)), graph.object_size(v), tree->retained_size(v), node_path[k]);
  }
  out += fmt::format("]}},\"paths\":[{}]", path_nodes);
  out += fmt::format(",\"suspects\":{}", suspects_json(file, snapshots.size(), strings, limits));
  out += fmt::format(",\"strings\":{}}}", strings.json());
  return out;
}

}  // namespace gcsnap::cli
