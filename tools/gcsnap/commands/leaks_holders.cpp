#include "commands/leaks_holders.hpp"

#include <fmt/format.h>

namespace gcsnap::cli {

SuspectPath describe_suspect_path(const LoadedHeap& heap, const ShortestPathTree& tree, NodeIndex node, bool fold) {
  SuspectPath out;
  out.address = heap.graph.address(node);
  if (!tree.is_reached(node)) return out;
  const RetentionPath path = tree.path_to(node);
  if (path.nodes.empty()) return out;
  out.nodes = path.nodes;
  const EdgeNamer namer = heap.edge_namer();
  const std::vector<HopField> fields = namer.name_path(path.nodes);
  out.hops = chain_hops(heap, path, fields, fold_path(heap, path, fields, fold));
  std::vector<std::string_view> types;
  types.reserve(path.nodes.size());
  for (NodeIndex v : path.nodes) types.push_back(heap.type_name(v));
  out.match = match_holder_pattern(types, fields);
  if (out.match.pattern != HolderPattern::None) {
    const PatternContext context{heap.graph, heap.names, namer, heap.delegates};
    const auto from = path.nodes.begin() + static_cast<std::ptrdiff_t>(out.match.structure_hop);
    out.target = describe_pattern_target(context, out.match.pattern, {from, path.nodes.end()});
  }
  return out;
}

std::string pattern_method(const SuspectPath& path) {
  if (!path.target.async_method.empty()) return path.target.async_method;
  return path.target.call.method;
}

std::vector<std::string> pattern_pieces(const SuspectPath& path,
                                        const std::function<std::string(const std::string&)>& type_text) {
  const HolderPatternMatch& m = path.match;
  const PatternTarget& t = path.target;
  std::vector<std::string> pieces{fmt::format("{} ({})", m.holder, holder_pattern_name(m.pattern))};
  if (t.call.found) pieces.push_back(" -> " + type_text(t.call.delegate_type));
  if (const std::string method = pattern_method(path); !method.empty())
    pieces.push_back(" -> " + method);
  else if (!t.target_type.empty())
    pieces.push_back(" -> " + type_text(t.target_type));
  if (!t.owner_field.empty()) pieces.push_back("; kept in " + t.owner_field);
  return pieces;
}

std::string pattern_holder_text(const SuspectPath& path) {
  if (path.match.pattern == HolderPattern::None) return {};
  std::string text;
  for (const std::string& piece : pattern_pieces(path, [](const std::string& type) { return type; })) text += piece;
  return text;
}

void add_named_path_columns(Table& table) {
  table.add_column("path", "PATH").add_column("pattern", "PATTERN").add_column("holder", "HOLDER");
  table.add_column("holder_link", "LINK").add_column("delegate", "DELEGATE").add_column("method", "METHOD");
  table.add_column("target", "TARGET").add_column("owner_field", "OWNER FIELD");
}

void add_named_path_cells(std::vector<Cell>& row, const SuspectPath* path) {
  auto text = [](const std::string& s) { return s.empty() ? Cell() : Cell(s); };
  if (!path || path->hops.empty()) {
    row.insert(row.end(), 8, Cell());
    return;
  }
  row.push_back(join_chain(path->hops) + " " + format_address(path->address));
  const HolderPatternMatch& m = path->match;
  const PatternTarget& t = path->target;
  row.push_back(text(std::string(holder_pattern_name(m.pattern))));
  row.push_back(text(m.holder));
  row.push_back(text(m.link));
  row.push_back(text(t.call.delegate_type));
  row.push_back(text(pattern_method(*path)));
  row.push_back(text(t.target_type));
  row.push_back(text(t.owner_field));
}

}  // namespace gcsnap::cli
