#include "export/heapsnapshot_export.hpp"

#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "gcsnap/enum_names.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

// The node and edge type indices of the meta block below (V8's order: DevTools and memlab
// read the names from the meta, but keep the usual order so other readers agree).
constexpr int kNodeSynthetic = 9;
constexpr int kNodeObject = 3;
constexpr int kEdgeElement = 1;
constexpr int kEdgeProperty = 2;
constexpr int kEdgeWeak = 6;
constexpr uint64_t kNodeFields = 7;

constexpr std::string_view kMeta =
    R"({"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],)"
    R"("node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic",)"
    R"("concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number",)"
    R"("number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element",)"
    R"("property","internal","hidden","shortcut","weak"],"string_or_number","node"],)"
    R"("trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],)"
    R"("trace_node_fields":["id","function_info_index","count","size","children"],)"
    R"("sample_fields":["timestamp_us","last_assigned_id"],)"
    R"("location_fields":["object_index","script_id","line","column"]},)";

// Interned strings: type names, field names, synthetic names. Bounded by the recording's
// names, not by the object count.
class Strings {
 public:
  uint32_t intern(std::string_view text) {
    auto [it, added] = index_.try_emplace(std::string(text), static_cast<uint32_t>(order_.size()));
    if (added) order_.push_back(&it->first);
    return it->second;
  }
  void write(OutputFile& out) const {
    out.write("\"strings\":[");
    for (size_t i = 0; i < order_.size(); ++i) {
      out.write(i ? ",\n\"" : "\"");
      out.write(json_escape(*order_[i]));
      out.write("\"");
    }
    out.write("]}\n");
  }

 private:
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<const std::string*> order_;
};

// "[17]" -> 17; anything else (such as "[17].value") is not a plain element index.
bool plain_index(std::string_view text, uint64_t& index) {
  if (text.size() < 3 || text.front() != '[' || text.back() != ']') return false;
  index = 0;
  for (char c : text.substr(1, text.size() - 2)) {
    if (c < '0' || c > '9') return false;
    index = index * 10 + static_cast<uint64_t>(c - '0');
  }
  return true;
}

}  // namespace

HeapSnapshotCounts write_heapsnapshot(const LoadedHeap& heap, OutputFile& out) {
  const HeapGraph& graph = heap.graph;
  constexpr std::array<RootKind, 4> kinds = {RootKind::Stack, RootKind::Handle, RootKind::Finalizer,
                                             RootKind::Other};
  // Synthetic nodes: "(GC roots)" at position 0, then one per root kind that has roots.
  std::array<uint64_t, 4> per_kind{};
  for (const GraphRoot& r : graph.roots()) ++per_kind[static_cast<size_t>(r.kind)];
  std::vector<RootKind> present;
  for (RootKind k : kinds)
    if (per_kind[static_cast<size_t>(k)]) present.push_back(k);
  const uint64_t synthetic = 1 + present.size();
  HeapSnapshotCounts counts;
  counts.synthetic_nodes = synthetic;
  counts.nodes = synthetic + graph.node_count();
  counts.root_edges = present.size() + graph.roots().size();
  counts.edges = counts.root_edges + graph.edge_count();

  Strings strings;
  out.write(kMeta);
  out.write(fmt::format("\"node_count\":{},\"edge_count\":{},\"trace_function_count\":0}},\n", counts.nodes,
                        counts.edges));
  // Nodes: type, name, id, self_size, edge_count, trace_node_id, detachedness.
  out.write("\"nodes\":[");
  fmt::memory_buffer line;
  uint64_t position = 0;
  auto node = [&](int type, uint32_t name, uint64_t size, uint64_t edges) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{}{},{},{},{},{},0,0", position ? ",\n" : "", type, name,
                   2 * position + 1, size, edges);
    out.write(std::string_view(line.data(), line.size()));
    ++position;
  };
  node(kNodeSynthetic, strings.intern("(GC roots)"), 0, present.size());
  for (RootKind k : present)
    node(kNodeSynthetic, strings.intern(fmt::format("({} roots)", root_kind_name(k))), 0, per_kind[static_cast<size_t>(k)]);
  std::vector<uint32_t> type_strings;  // type id -> string index + 1 (0: not interned yet)
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const uint32_t type = graph.type_id(v);
    if (type >= type_strings.size()) type_strings.resize(type + 1, 0);
    if (!type_strings[type]) type_strings[type] = strings.intern(heap.names.type_name(type)) + 1;
    node(kNodeObject, type_strings[type] - 1, graph.object_size(v), graph.successors(v).size());
  }
  out.write("],\n\"edges\":[");

  // Edges: type, name_or_index, to_node (the target's position times the node field count).
  bool first_edge = true;
  auto edge = [&](int type, uint64_t name_or_index, uint64_t to_position) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{}{},{},{}", first_edge ? "" : ",\n", type, name_or_index,
                   to_position * kNodeFields);
    out.write(std::string_view(line.data(), line.size()));
    first_edge = false;
  };
  for (size_t i = 0; i < present.size(); ++i) edge(kEdgeElement, i + 1, 1 + i);
  for (RootKind k : present) {
    uint64_t index = 0;
    for (const GraphRoot& r : graph.roots()) {
      if (r.kind != k) continue;
      ++index;
      const uint64_t to = synthetic + r.node;
      // A weak handle does not keep its object alive: a weak edge, which DevTools and memlab
      // leave out of retainer paths, as gcsnap path does without --include-weak.
      if (r.is_weak()) {
        edge(kEdgeWeak, strings.intern(fmt::format("weak handle {}", index)), to);
        continue;
      }
      const MethodRecord* method = k == RootKind::Stack ? heap.names.find_method(r.root_id) : nullptr;
      if (method) edge(kEdgeProperty, strings.intern(method->name), to);
      else edge(kEdgeElement, index, to);
    }
  }
  const EdgeNamer namer = heap.edge_namer();
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const auto targets = graph.successors(v);
    for (size_t j = 0; j < targets.size(); ++j) {
      const uint64_t to = synthetic + targets[j];
      const HopField f = namer.name_successor(v, j);
      uint64_t index = 0;
      if (f.kind == EdgeNameKind::Unknown) {
        const bool dependent = graph.edge_kind(v, targets[j]) == EdgeKind::DependentHandle;
        edge(kEdgeProperty, strings.intern(dependent ? "(ConditionalWeakTable value)" : "(unnamed)"), to);
        continue;
      }
      ++counts.named_edges;
      if (f.kind == EdgeNameKind::Element && plain_index(f.text, index)) edge(kEdgeElement, index, to);
      else edge(kEdgeProperty, strings.intern(f.text), to);
    }
  }
  out.write("],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n\"locations\":[],\n");
  strings.write(out);
  return counts;
}

}  // namespace gcsnap::cli
