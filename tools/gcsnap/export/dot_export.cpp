#include "export/dot_export.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "gcsnap/edge_names.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/path_fold.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

// The inside of a dot double-quoted string.
std::string dot_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string object_id(const LoadedHeap& heap, NodeIndex v) { return format_address(heap.graph.address(v)); }

}  // namespace

void write_dot(const LoadedHeap& heap, const std::vector<RetentionPath>& paths, const std::vector<NodeIndex>& targets,
               OutputFile& out, bool fold) {
  const HeapGraph& graph = heap.graph;
  const EdgeNamer namer = heap.edge_namer();
  std::set<std::string> roots_drawn;
  std::set<NodeIndex> objects;
  std::set<std::pair<std::string, std::string>> edges_drawn;
  std::string nodes_text, edges_text;
  auto add_edge = [&](const std::string& from, const std::string& to, const std::string& attributes) {
    if (!edges_drawn.emplace(from, to).second) return;
    edges_text += fmt::format("  \"{}\" -> \"{}\"{};\n", from, to, attributes);
  };
  for (const RetentionPath& path : paths) {
    if (path.nodes.empty()) continue;
    const GraphRoot& root = graph.roots()[path.root];
    const std::string root_id = fmt::format("{}{} roots", root.is_weak() ? "weak " : "", root_kind_name(root.kind));
    if (roots_drawn.insert(root_id).second)
      nodes_text += fmt::format("  \"{}\" [shape=ellipse, style=filled, fillcolor=\"#e8e8e8\"];\n", root_id);
    std::string root_label;
    if (root.kind == RootKind::Stack)
      if (const MethodRecord* m = heap.names.find_method(root.root_id)) root_label = std::string(m->name);
    add_edge(root_id, object_id(heap, path.nodes.front()),
             root_label.empty() ? "" : fmt::format(" [label=\"{}\"]", dot_escape(root_label)));
    // Hop H's key: its type and the field out of it; a run of equal keys is drawn once.
    std::vector<std::string> out_field(path.nodes.size());
    std::vector<uint32_t> keys;
    std::map<std::string, uint32_t> ids;
    for (size_t h = 0; h < path.nodes.size(); ++h) {
      if (h + 1 < path.nodes.size()) {
        if (h < path.edges.size() && path.edges[h].kind == EdgeKind::DependentHandle) {
          out_field[h] = "\x01";  // drawn dashed below
        } else {
          const HopField f = namer.name_edge(path.nodes[h], path.nodes[h + 1]);
          if (f.kind != EdgeNameKind::Unknown) out_field[h] = f.text + (f.is_static ? " (static)" : "");
        }
      }
      const std::string key = std::string(heap.type_name(path.nodes[h])) + '\0' + out_field[h];
      keys.push_back(ids.try_emplace(key, static_cast<uint32_t>(ids.size())).first->second);
    }
    auto folded = fold_repeats(keys, fold ? 4 : 0);
    if (!folded) throw std::bad_alloc();
    for (size_t k = 0; k < folded->size(); ++k) {
      const size_t h = folded->first[k];
      const NodeIndex v = path.nodes[h];
      if (objects.insert(v).second) {
        const bool target = std::find(targets.begin(), targets.end(), v) != targets.end();
        nodes_text += fmt::format("  \"{}\" [label=\"{}\\n{} ({})\"{}];\n", object_id(heap, v),
                                  dot_escape(heap.type_name(v)), object_id(heap, v),
                                  format_bytes(graph.object_size(v)),
                                  target ? ", style=filled, fillcolor=\"#ffd0c8\"" : "");
      }
      if (k == 0) continue;
      // The edge from the previous kept object spans its run's hops.
      const size_t from_h = folded->first[k - 1];
      const uint64_t hops = folded->counts[k - 1];
      const std::string& field = out_field[h - 1];
      std::string attributes;
      if (field == "\x01") {
        attributes = " [label=\"ConditionalWeakTable\", style=dashed]";
      } else if (hops > 1) {
        attributes = fmt::format(" [label=\"{} ×{}\", style=bold]", dot_escape(field), hops);
      } else if (!field.empty()) {
        attributes = fmt::format(" [label=\"{}\"]", dot_escape(field));
      }
      add_edge(object_id(heap, path.nodes[from_h]), object_id(heap, v), attributes);
    }
  }
  out.write(fmt::format("// gcsnap export --to dot: retention paths in GC {} of {}\n", heap.sel.number(),
                        heap.sel.file));
  out.write("digraph retention {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
            "  edge [fontname=\"monospace\", fontsize=9];\n");
  out.write(nodes_text);
  out.write(edges_text);
  out.write("}\n");
}

}  // namespace gcsnap::cli
