#include "diff_objects_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cli_error.hpp"
#include "gcsnap/group_paths.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/object_diff.hpp"
#include "gcsnap/object_identity.hpp"
#include "gcsnap/root_summary.hpp"

namespace gcsnap::cli {

Table ObjectLevel::empty_totals() {
  Table t("objects", "Objects (matched through the moved/surviving ranges of every GC in between)");
  t.add_column("category", "OBJECTS").add_column("count", "COUNT", ColumnKind::Count);
  t.add_column("bytes", "BYTES", ColumnKind::Bytes);
  return t;
}

Table ObjectLevel::empty_groups() {
  Table t("new_objects_by_type", "Largest groups of new objects (alive at B, not at A), with their most common retention path");
  t.add_column("type", "TYPE").add_column("count", "COUNT", ColumnKind::Count);
  t.add_column("bytes", "BYTES", ColumnKind::Bytes).add_column("example", "EXAMPLE", ColumnKind::Address);
  t.add_column("path_length", "HOPS", ColumnKind::Count).add_column("path_share", "SHARE");
  t.add_column("path", "MOST COMMON RETENTION PATH (root -> ... -> example)");
  return t;
}

Table ObjectLevel::empty_dead_groups() {
  Table t("dead_objects_by_type", "Largest groups of dead objects (alive at A, not at B)");
  t.add_column("type", "TYPE").add_column("count", "COUNT", ColumnKind::Count);
  t.add_column("bytes", "BYTES", ColumnKind::Bytes).add_column("example", "EXAMPLE AT A", ColumnKind::Address);
  return t;
}

namespace {

// Generation of each address per A's walk (containing object), as hints for the mapper.
std::vector<Generation> generation_hints(const ObjectTable& objects, std::span<const uint64_t> addresses) {
  std::vector<Generation> out;
  out.reserve(addresses.size());
  for (uint64_t x : addresses) {
    const auto row = objects.find_containing(x);
    out.push_back(row ? objects.generations[*row] : Generation::Unknown);
  }
  return out;
}

std::string path_text(const HeapGraph& graph, const NameTable& names, const RetentionPath& path) {
  if (path.nodes.empty()) return "(not reachable from a strong root)";
  const GraphRoot& root = graph.roots()[path.root];
  std::string flags = root_flags_text(root.flags);
  std::string s = fmt::format("[{}{}{}]", root_kind_name(root.kind), flags.empty() ? "" : " ", flags);
  for (size_t h = 0; h < path.nodes.size(); ++h) {
    const bool dependent = h > 0 && h - 1 < path.edges.size() && path.edges[h - 1].kind == EdgeKind::DependentHandle;
    s += fmt::format(" {} {}", dependent ? "-[ConditionalWeakTable]->" : "->", names.type_name(graph.type_id(path.nodes[h])));
  }
  return s;
}

void add_group_rows(Table& table, const DiffSide& b, const std::vector<TypeGroup>& groups,
                    std::vector<std::string>& notes) {
  auto graph = HeapGraph::build(b.objects, b.roots, b.has_dependent ? &b.dependent : nullptr);
  if (!graph) fail_on(b.selected.file, graph.error());
  auto paths = find_group_paths(*graph, groups);
  if (!paths) fail_on(b.selected.file, paths.error());
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& p = (*paths)[g];
    const bool found = p.member != kNoObject;
    const size_t example = found ? p.member : groups[g].members.front();
    // Share: members whose shortest path has this shape, of the members examined.
    table.add_row({groups[g].name, groups[g].count, groups[g].bytes, b.objects.addresses[example],
                   found ? Cell(static_cast<uint64_t>(p.path.hops())) : Cell(),
                   fmt::format("{}/{}", p.same_shape, p.examined), path_text(*graph, b.names, p.path)});
  }
  if (graph->stats().unresolved_roots)
    notes.push_back(fmt::format("{} roots of GC {} point at no walked object", graph->stats().unresolved_roots,
                                b.gc_number));
}

}  // namespace

ObjectLevel diff_object_level(const Recording& recording, const DiffSide& a, const DiffSide& b, size_t top,
                              std::vector<std::string>& notes) {
  ObjectLevel out;
  // Identity only runs forward in time: follow the earlier side's objects to the later one.
  const bool reversed = a.selected.index > b.selected.index;
  const DiffSide& early = reversed ? b : a;
  const DiffSide& late = reversed ? a : b;
  const size_t ie = early.selected.index, il = late.selected.index;
  // One pass over the GCs in between follows the objects and the roots' objects together.
  const size_t n = early.objects.size();
  std::vector<uint64_t> addresses = early.objects.addresses;
  addresses.insert(addresses.end(), early.roots.object_ids.begin(), early.roots.object_ids.end());
  std::vector<Generation> hints = early.objects.generations;
  const auto root_hints = generation_hints(early.objects, early.roots.object_ids);
  hints.insert(hints.end(), root_hints.begin(), root_hints.end());
  auto mapper = map_objects(recording, ie, il, addresses, hints);
  if (!mapper && mapper.error().code == ErrorCode::InconsistentData) {
    notes.push_back(fmt::format("no object-level diff: {} between GC {} and GC {}", mapper.error().detail,
                                early.gc_number, late.gc_number));
    return out;
  }
  if (!mapper) fail_on(a.selected.file, mapper.error());
  std::vector<uint64_t> mapped_roots(early.roots.size());
  for (size_t i = 0; i < early.roots.size(); ++i)
    mapped_roots[i] = mapper->is_alive(n + i) ? mapper->addresses()[n + i] : 0;
  out.roots = diff_roots(early.roots, mapped_roots, late.roots);
  if (reversed) std::swap(out.roots->added, out.roots->removed);

  auto diff = diff_objects(early.objects, late.objects, mapper->addresses().first(n), mapper->died_at().first(n));
  if (!diff) fail_on(a.selected.file, diff.error());
  // In A-to-B terms: "new" are in B and not in A, "dead" in A and not in B.
  const auto& new_in_b = reversed ? diff->dead_objects : diff->new_objects;
  out.totals.add_row({"new", new_in_b.size(), reversed ? diff->dead_bytes : diff->new_bytes});
  out.totals.add_row({"dead", reversed ? diff->new_objects.size() : diff->dead_objects.size(),
                      reversed ? diff->new_bytes : diff->dead_bytes});
  out.totals.add_row({"surviving", diff->surviving_count, reversed ? diff->surviving_bytes_a : diff->surviving_bytes_b});
  uint64_t missing_bytes = 0;
  for (size_t i : diff->missing_in_b) missing_bytes += early.objects.sizes[i];
  out.totals.add_row({"missing", diff->missing_in_b.size(), missing_bytes});
  if (reversed)
    notes.push_back(fmt::format("A (GC {}) is later than B (GC {}): objects were followed from B forward to A",
                                a.gc_number, b.gc_number));
  if (!diff->missing_in_b.empty())
    notes.push_back(fmt::format("{} objects of GC {} survived by the ranges but are not in GC {}'s heap walk",
                                diff->missing_in_b.size(), early.gc_number, late.gc_number));

  auto groups = group_by_type(b.objects, b.names, new_in_b);
  if (top && groups.size() > top) groups.resize(top);
  if (!groups.empty()) add_group_rows(out.groups, b, groups, notes);
  auto dead = group_by_type(a.objects, a.names, reversed ? diff->new_objects : diff->dead_objects);
  if (top && dead.size() > top) dead.resize(top);
  for (const auto& g : dead) out.dead_groups.add_row({g.name, g.count, g.bytes, a.objects.addresses[g.members.front()]});
  return out;
}

}  // namespace gcsnap::cli
