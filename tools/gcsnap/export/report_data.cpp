#include "export/report_data.hpp"
#include "export/report_alloc_data.hpp"
#include "export/report_strings.hpp"
#include "export/report_suspects.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "loading/gc_select.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/path_fold.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/type_histogram.hpp"
#include "loading/heap_load.hpp"
#include "loading/leak_load.hpp"
#include "output/memory_text.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

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

// "memory": the last walked GC's summary line, its four parts (live, free or fragmented,
// native and other, held by gcsnap; live -1 without a walk), the advice, and per GC with a record [gc number,
// rss, managed, live or -1]; null when the recording has no memory records (format §6.16).
std::string memory_json(const Recording& rec) {
  const auto at = memory_summary_gc(rec);
  if (!at) return "null";
  const MemoryAccounting m = **rec.read_memory_accounting(*at);
  const bool live = m.has(memory_present::kLiveObjects);
  std::string out = fmt::format("{{\"gc\":{},\"summary\":\"{}\",\"parts\":[{},{},{},{}],\"advice\":[",
                                rec.gcs()[*at].info.gc_number, json_escape(memory_summary(m)),
                                live ? static_cast<int64_t>(std::min(m.live_object_bytes, m.gc_resident_bytes)) : -1,
                                live ? m.free_or_fragmented_bytes() : m.gc_resident_bytes, m.native_and_other_bytes(),
                                m.gcsnap_bytes());
  const std::vector<std::string> advice = memory_advice(rec, *at, m);
  for (size_t k = 0; k < advice.size(); ++k) out += fmt::format("{}\"{}\"", k ? "," : "", json_escape(advice[k]));
  out += "],\"series\":[";
  bool first = true;
  for (size_t i = 0; i < rec.gcs().size(); ++i) {
    auto read = rec.read_memory_accounting(i);
    if (!read || !*read || !(*read)->has(memory_present::kProcess)) continue;
    const MemoryAccounting& r = **read;
    out += fmt::format("{}[{},{},{},{}]", first ? "" : ",", rec.gcs()[i].info.gc_number, r.rss_bytes, r.gc_resident_bytes,
                       r.has(memory_present::kLiveObjects) ? static_cast<int64_t>(r.live_object_bytes) : -1);
    first = false;
  }
  return out + "]}";
}

struct TypeSeries {
  std::vector<uint64_t> count, bytes;
};

// What the treemap would otherwise draw as one grey "smaller objects" block: per carried
// dominator node (key: its position, -1 for the virtual root), the children it dominates
// directly that are not carried, summed by type: [[type, retained bytes, objects], ...], the
// six largest types, then the rest as type -1. One pass over the nodes.
std::string rest_by_type_json(const LoadedHeap& heap, const DominatorTree& tree,
                              const std::unordered_map<NodeIndex, size_t>& position, StringTable& strings) {
  constexpr size_t kTypes = 6;
  std::unordered_map<int64_t, std::unordered_map<uint32_t, std::pair<uint64_t, uint64_t>>> rest;
  for (NodeIndex v = 0; v < heap.graph.node_count(); ++v) {
    const NodeIndex p = tree.immediate_dominator(v);
    if (p == kNoNode || position.count(v)) continue;
    int64_t key = -1;
    if (p != kVirtualRoot) {
      const auto it = position.find(p);
      if (it == position.end()) continue;
      key = static_cast<int64_t>(it->second);
    }
    auto& entry = rest[key][heap.graph.type_id(v)];
    entry.first += tree.retained_size(v);
    ++entry.second;
  }
  std::string out = "{";
  bool first_key = true;
  for (auto& [key, by_type] : rest) {
    std::vector<std::pair<uint32_t, std::pair<uint64_t, uint64_t>>> sorted(by_type.begin(), by_type.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.second.first != b.second.first ? a.second.first > b.second.first : a.first < b.first;
    });
    std::string items;
    uint64_t other_bytes = 0, other_count = 0;
    for (size_t k = 0; k < sorted.size(); ++k) {
      if (k < kTypes) {
        items += fmt::format("{}[{},{},{}]", items.empty() ? "" : ",",
                             strings.intern(std::string(heap.names.type_name(sorted[k].first))),
                             sorted[k].second.first, sorted[k].second.second);
      } else {
        other_bytes += sorted[k].second.first;
        other_count += sorted[k].second.second;
      }
    }
    if (other_count) items += fmt::format(",[-1,{},{}]", other_bytes, other_count);
    out += fmt::format("{}\"{}\":[{}]", first_key ? "" : ",", key, items);
    first_key = false;
  }
  return out + "}";
}

// Count and shallow bytes per type at every snapshot (type ids are the recording's: stable).
struct SnapshotSeries {
  std::vector<TypeSeries> by_type;  // by type id
  std::vector<uint64_t> counts, bytes;  // per snapshot
};

SnapshotSeries snapshot_series(const Recording& rec, const std::string& file, const std::vector<size_t>& snapshots) {
  SnapshotSeries out;
  for (size_t s = 0; s < snapshots.size(); ++s) {
    auto objects = rec.read_objects(snapshots[s]);
    if (!objects) fail_on(file, objects.error());
    uint64_t bytes = 0;
    for (size_t k = 0; k < objects->size(); ++k) {
      const uint32_t type = objects->type_ids[k];
      if (type >= out.by_type.size()) out.by_type.resize(type + 1);
      TypeSeries& t = out.by_type[type];
      if (t.count.size() < snapshots.size()) {
        t.count.resize(snapshots.size(), 0);
        t.bytes.resize(snapshots.size(), 0);
      }
      ++t.count[s];
      t.bytes[s] += objects->sizes[k];
      bytes += objects->sizes[k];
    }
    out.counts.push_back(objects->size());
    out.bytes.push_back(bytes);
  }
  return out;
}

// The types carried: the largest by retained bytes at the last snapshot, then the largest by
// shallow bytes at any snapshot (a type that grew and shrank again), up to limits.types.
struct CarriedTypes {
  std::vector<uint32_t> types;
  std::vector<bool> is_carried;  // by type id
  size_t total = 0;              // types seen at any snapshot
};

CarriedTypes carried_types(const std::vector<TypeSeries>& series, const std::vector<TypeStats>& histogram,
                           size_t limit) {
  CarriedTypes out;
  out.is_carried.assign(series.size(), false);
  auto carry = [&](uint32_t type) {
    if (out.types.size() >= limit || type >= series.size() || out.is_carried[type] || series[type].count.empty()) return;
    out.is_carried[type] = true;
    out.types.push_back(type);
  };
  for (size_t k = 0; k < histogram.size() && out.types.size() < limit / 2; ++k) carry(histogram[k].type_id);
  std::vector<std::pair<uint64_t, uint32_t>> by_peak;
  for (uint32_t type = 0; type < series.size(); ++type)
    if (!series[type].bytes.empty())
      by_peak.emplace_back(*std::max_element(series[type].bytes.begin(), series[type].bytes.end()), type);
  std::sort(by_peak.begin(), by_peak.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (auto& [peak, type] : by_peak) carry(type);
  out.total = by_peak.size();
  return out;
}

// "snaps" .. "other": the snapshots' totals, the carried types' series with their retained
// size at the last snapshot, and the rest summed.
std::string types_json(const Recording& rec, const std::vector<size_t>& snapshots, const SnapshotSeries& series,
                       const CarriedTypes& carried, const std::vector<TypeStats>& histogram, const NameTable& names,
                       StringTable& strings) {
  std::unordered_map<uint32_t, const TypeStats*> last_stats;
  for (const TypeStats& t : histogram) last_stats[t.type_id] = &t;
  std::vector<uint64_t> other_count(snapshots.size(), 0), other_bytes(snapshots.size(), 0);
  for (uint32_t type = 0; type < series.by_type.size(); ++type) {
    if (carried.is_carried[type] || series.by_type[type].count.empty()) continue;
    for (size_t s = 0; s < snapshots.size(); ++s) {
      other_count[s] += series.by_type[type].count[s];
      other_bytes[s] += series.by_type[type].bytes[s];
    }
  }
  std::vector<uint64_t> snap_numbers;
  for (size_t i : snapshots) snap_numbers.push_back(rec.gcs()[i].info.gc_number);
  std::string out = fmt::format(",\"snaps\":{},\"snapCount\":{},\"snapBytes\":{},\"typeTotal\":{}",
                                json_array(snap_numbers), json_array(series.counts), json_array(series.bytes),
                                carried.total);
  out += ",\"types\":[";
  for (size_t k = 0; k < carried.types.size(); ++k) {
    const uint32_t type = carried.types[k];
    const auto it = last_stats.find(type);
    const TypeStats* last = it == last_stats.end() ? nullptr : it->second;
    out += fmt::format("{}{{\"n\":{},\"c\":{},\"b\":{},\"r\":{},\"u\":{}}}", k ? "," : "",
                       strings.intern(names.type_name(type)), json_array(series.by_type[type].count),
                       json_array(series.by_type[type].bytes), last ? last->retained_bytes : 0,
                       last ? last->unreachable_count : 0);
  }
  out += fmt::format("],\"other\":{{\"c\":{},\"b\":{}}}", json_array(other_count), json_array(other_bytes));
  return out;
}

// The dominator tree, pruned to the nodes with the largest retained sizes and closed under
// their dominators, so that every node carried has its parent carried (or the virtual root);
// in preorder-like order (by depth, then retained size), so parents come first.
struct PrunedTree {
  std::vector<NodeIndex> nodes;
  std::unordered_map<NodeIndex, size_t> position;  // of each node in `nodes`
};

PrunedTree prune_dominator_tree(const DominatorTree& tree, size_t limit) {
  std::vector<NodeIndex> chosen = tree.top_retainers(limit);
  PrunedTree out;
  for (NodeIndex v : chosen) out.position.emplace(v, 0);
  for (size_t k = 0; k < chosen.size(); ++k)
    for (NodeIndex p = tree.immediate_dominator(chosen[k]); p != kVirtualRoot && p != kNoNode; p = tree.immediate_dominator(p))
      if (out.position.emplace(p, 0).second) chosen.push_back(p);
  std::vector<std::pair<uint32_t, NodeIndex>> ordered;
  for (NodeIndex v : chosen) ordered.emplace_back(tree.depth(v), v);
  std::sort(ordered.begin(), ordered.end(), [&](auto& a, auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return tree.retained_size(a.second) > tree.retained_size(b.second);
  });
  for (size_t k = 0; k < ordered.size(); ++k) {
    out.nodes.push_back(ordered[k].second);
    out.position[ordered[k].second] = k;
  }
  return out;
}

// Retention paths (shortest from a strong root, field names where recorded) of the largest
// nodes of PRUNED, as one tree: the union of the paths, each object once. Returns the path
// nodes' JSON; NODE_PATH gets each pruned node's entry in it (-1: no path).
std::string paths_json(LoadedHeap& heap, const DominatorTree& tree, const PrunedTree& pruned, size_t limit,
                       StringTable& strings, std::vector<int64_t>& node_path) {
  const HeapGraph& graph = heap.graph;
  const ShortestPathTree* bfs = value_or_fail(heap.find_path_tree(), heap.sel.file);
  const EdgeNamer namer = heap.edge_namer();
  std::unordered_map<NodeIndex, size_t> path_position;
  std::string path_nodes;
  size_t path_count = 0;
  node_path.assign(pruned.nodes.size(), -1);
  std::vector<NodeIndex> by_retained = pruned.nodes;
  std::stable_sort(by_retained.begin(), by_retained.end(),
                   [&](NodeIndex a, NodeIndex b) { return tree.retained_size(a) > tree.retained_size(b); });
  if (by_retained.size() > limit) by_retained.resize(limit);
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
            if (const MethodRecord* m = heap.names.find_method(r.root_id)) root += " " + std::string(m->name);
        } else if (h - 1 < path.edges.size() && path.edges[h - 1].kind == EdgeKind::DependentHandle) {
          field = "(ConditionalWeakTable value)";
        } else {
          const HopField f = namer.name_edge(path.nodes[h - 1], u);
          field = f.kind == EdgeNameKind::Unknown ? "" : (f.is_static ? f.text + " (static)" : f.text);
        }
        path_nodes += fmt::format("{}[{},{},\"{}\",{},{},{}]", path_count ? "," : "", parent,
                                  strings.intern(heap.type_name(u)), format_address(graph.address(u)),
                                  graph.object_size(u), field.empty() ? -1 : static_cast<int64_t>(strings.intern(field)),
                                  root.empty() ? -1 : static_cast<int64_t>(strings.intern(root)));
        ++path_count;
      }
      parent = static_cast<int64_t>(it->second);
    }
    node_path[pruned.position.at(v)] = parent;
  }
  return path_nodes;
}

// "dom": the pruned tree's nodes with their parent's position, size, retained size and path.
std::string dominators_json(const LoadedHeap& heap, const DominatorTree& tree, const PrunedTree& pruned,
                            const std::vector<int64_t>& node_path, StringTable& strings) {
  const HeapGraph& graph = heap.graph;
  std::string out = fmt::format(
      ",\"dom\":{{\"gc\":{},\"reachBytes\":{},\"reachCount\":{},\"unreachBytes\":{},\"unreachCount\":{},"
      "\"nodes\":[",
      heap.sel.number(), tree.reachable_bytes(), tree.reachable_count(), tree.unreachable_bytes(),
      tree.unreachable_count());
  for (size_t k = 0; k < pruned.nodes.size(); ++k) {
    const NodeIndex v = pruned.nodes[k];
    const NodeIndex p = tree.immediate_dominator(v);
    const int64_t parent = p == kVirtualRoot ? -1 : static_cast<int64_t>(pruned.position.at(p));
    out += fmt::format("{}[{},{},\"{}\",{},{},{}]", k ? "," : "", parent, strings.intern(heap.type_name(v)),
                       format_address(graph.address(v)), graph.object_size(v), tree.retained_size(v), node_path[k]);
  }
  return out + fmt::format("],\"rest\":{}}}", rest_by_type_json(heap, tree, pruned.position, strings));
}

}  // namespace

std::string build_report_data(const std::string& file, const ReportLimits& limits) {
  auto recording = open_recording(file);
  const Recording& rec = *recording;
  StringTable strings;
  std::string out = fmt::format("{{\"file\":\"{}\",\"end\":\"{}\",\"gcs\":{},\"memory\":{}", json_escape(file),
                                file_end_name(rec.end()), timeline_json(rec, file), memory_json(rec));
  std::vector<size_t> snapshots;
  for (size_t i = 0; i < rec.gcs().size(); ++i)
    if (rec.gcs()[i].has_heap_walk()) snapshots.push_back(i);
  if (snapshots.empty()) return out + ",\"snaps\":[]}";

  const SnapshotSeries series = snapshot_series(rec, file, snapshots);
  // The last snapshot: graph, dominators, retained sizes per type, and paths.
  const auto heap = load_heap(file, rec.gcs()[snapshots.back()].info.gc_number,
                              kNeedGraph | kNeedPredecessors | kNeedFieldNames);
  const DominatorTree& tree = heap->dominators(false);
  const std::vector<TypeStats> histogram =
      heap->type_histogram(false, TypeHistogramOptions{TypeOrder::RetainedBytes, 0});
  const CarriedTypes carried = carried_types(series.by_type, histogram, limits.types);
  out += types_json(rec, snapshots, series, carried, histogram, heap->names, strings);
  const PrunedTree pruned = prune_dominator_tree(tree, limits.dominator_nodes);
  std::vector<int64_t> node_path;
  const std::string path_nodes = paths_json(*heap, tree, pruned, limits.paths, strings, node_path);
  out += dominators_json(*heap, tree, pruned, node_path, strings);
  out += fmt::format(",\"paths\":[{}]", path_nodes);
  const ShortestPathTree* bfs = value_or_fail(heap->find_path_tree(), file);
  out += fmt::format(",\"suspects\":{}", suspects_json(file, snapshots.size(), strings, limits, *heap, *bfs));
  out += report_alloc_json(file, rec, snapshots.back());  // nothing for a recording without samples
  out += fmt::format(",\"strings\":{}}}", strings.json());
  return out;
}

}  // namespace gcsnap::cli
