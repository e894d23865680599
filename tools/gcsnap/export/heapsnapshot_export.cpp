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

// The nodes and edges arrays, one line per node or edge, with the strings they name.
class SnapshotArrays {
 public:
  explicit SnapshotArrays(OutputFile& out) : out_(out) {}
  Strings& strings() { return strings_; }

  // A node: type, name, id, self_size, edge_count, trace_node_id, detachedness.
  void node(int type, uint32_t name, uint64_t size, uint64_t edges) {
    line_.clear();
    fmt::format_to(std::back_inserter(line_), "{}{},{},{},{},{},0,0", nodes_ ? ",\n" : "", type, name,
                   2 * nodes_ + 1, size, edges);
    out_.write(std::string_view(line_.data(), line_.size()));
    ++nodes_;
  }
  // An edge: type, name_or_index, to_node (the target's position times the node field count).
  void edge(int type, uint64_t name_or_index, uint64_t to_position) {
    line_.clear();
    fmt::format_to(std::back_inserter(line_), "{}{},{},{}", edges_ ? ",\n" : "", type, name_or_index,
                   to_position * kNodeFields);
    out_.write(std::string_view(line_.data(), line_.size()));
    ++edges_;
  }

 private:
  OutputFile& out_;
  Strings strings_;
  fmt::memory_buffer line_;
  uint64_t nodes_ = 0;
  uint64_t edges_ = 0;
};

// The synthetic nodes: "(GC roots)" at position 0, then one per root kind that has roots.
struct RootKinds {
  std::array<uint64_t, 4> per_kind{};
  std::vector<RootKind> present;
};

RootKinds root_kinds(const HeapGraph& graph) {
  constexpr std::array<RootKind, 4> kinds = {RootKind::Stack, RootKind::Handle, RootKind::Finalizer,
                                             RootKind::Other};
  RootKinds out;
  for (const GraphRoot& r : graph.roots()) ++out.per_kind[static_cast<size_t>(r.kind)];
  for (RootKind k : kinds)
    if (out.per_kind[static_cast<size_t>(k)]) out.present.push_back(k);
  return out;
}

void write_nodes(const LoadedHeap& heap, const RootKinds& roots, SnapshotArrays& arrays) {
  const HeapGraph& graph = heap.graph;
  Strings& strings = arrays.strings();
  arrays.node(kNodeSynthetic, strings.intern("(GC roots)"), 0, roots.present.size());
  for (RootKind k : roots.present) {
    arrays.node(kNodeSynthetic, strings.intern(fmt::format("({} roots)", root_kind_name(k))), 0,
                roots.per_kind[static_cast<size_t>(k)]);
  }
  std::vector<uint32_t> type_strings;  // type id -> string index + 1 (0: not interned yet)
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const uint32_t type = graph.type_id(v);
    if (type >= type_strings.size()) type_strings.resize(type + 1, 0);
    if (!type_strings[type]) type_strings[type] = strings.intern(heap.names.type_name(type)) + 1;
    arrays.node(kNodeObject, type_strings[type] - 1, graph.object_size(v), graph.successors(v).size());
  }
}

// The edges of the synthetic nodes: "(GC roots)" to each kind, each kind to its roots' objects.
void write_root_edges(const LoadedHeap& heap, const RootKinds& roots, uint64_t synthetic, SnapshotArrays& arrays) {
  for (size_t i = 0; i < roots.present.size(); ++i) arrays.edge(kEdgeElement, i + 1, 1 + i);
  for (RootKind k : roots.present) {
    uint64_t index = 0;
    for (const GraphRoot& r : heap.graph.roots()) {
      if (r.kind != k) continue;
      ++index;
      const uint64_t to = synthetic + r.node;
      // A weak handle does not keep its object alive: a weak edge, which DevTools and memlab
      // leave out of retainer paths, as gcsnap path does without --include-weak.
      if (r.is_weak()) {
        arrays.edge(kEdgeWeak, arrays.strings().intern(fmt::format("weak handle {}", index)), to);
        continue;
      }
      const MethodRecord* method = k == RootKind::Stack ? heap.names.find_method(r.root_id) : nullptr;
      if (method) arrays.edge(kEdgeProperty, arrays.strings().intern(method->name), to);
      else arrays.edge(kEdgeElement, index, to);
    }
  }
}

// The objects' references, named by their fields; return how many have a name.
uint64_t write_object_edges(const LoadedHeap& heap, uint64_t synthetic, SnapshotArrays& arrays) {
  const HeapGraph& graph = heap.graph;
  const EdgeNamer namer = heap.edge_namer();
  uint64_t named = 0;
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const auto targets = graph.successors(v);
    for (size_t j = 0; j < targets.size(); ++j) {
      const uint64_t to = synthetic + targets[j];
      const HopField f = namer.name_successor(v, j);
      uint64_t index = 0;
      if (f.kind == EdgeNameKind::Unknown) {
        const bool dependent = graph.edge_kind(v, targets[j]) == EdgeKind::DependentHandle;
        arrays.edge(kEdgeProperty, arrays.strings().intern(dependent ? "(ConditionalWeakTable value)" : "(unnamed)"), to);
        continue;
      }
      ++named;
      if (f.kind == EdgeNameKind::Element && plain_index(f.text, index)) arrays.edge(kEdgeElement, index, to);
      else arrays.edge(kEdgeProperty, arrays.strings().intern(f.text), to);
    }
  }
  return named;
}

}  // namespace

HeapSnapshotCounts write_heapsnapshot(const LoadedHeap& heap, OutputFile& out) {
  const HeapGraph& graph = heap.graph;
  const RootKinds roots = root_kinds(graph);
  const uint64_t synthetic = 1 + roots.present.size();
  HeapSnapshotCounts counts;
  counts.synthetic_nodes = synthetic;
  counts.nodes = synthetic + graph.node_count();
  counts.root_edges = roots.present.size() + graph.roots().size();
  counts.edges = counts.root_edges + graph.edge_count();

  SnapshotArrays arrays(out);
  out.write(kMeta);
  out.write(fmt::format("\"node_count\":{},\"edge_count\":{},\"trace_function_count\":0}},\n", counts.nodes,
                        counts.edges));
  out.write("\"nodes\":[");
  write_nodes(heap, roots, arrays);
  out.write("],\n\"edges\":[");
  write_root_edges(heap, roots, synthetic, arrays);
  counts.named_edges = write_object_edges(heap, synthetic, arrays);
  out.write("],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n\"locations\":[],\n");
  arrays.strings().write(out);
  return counts;
}

}  // namespace gcsnap::cli
