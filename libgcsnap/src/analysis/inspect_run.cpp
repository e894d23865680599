// inspect_heap: run the finding rules, then count each finding's bytes, each kind's and the
// whole report's over the union of the objects they name (gcsnap/inspect.hpp).
#include <algorithm>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "gcsnap/inspect.hpp"

namespace gcsnap {

std::string InspectInput::holder_of(NodeIndex node) const {
  if (!graph.has_reverse()) return {};
  std::string fallback;
  for (NodeIndex from : graph.predecessors(node)) {
    if (from == node) continue;
    const HopField field = namer.name_edge(from, node);
    const std::string_view owner = type_name(from);
    if (field.is_static) return field.text;  // "Namespace.Class.Field" already
    if (field.kind == EdgeNameKind::Field) return std::string(owner) + "." + field.text;
    if (field.kind == EdgeNameKind::Element) return std::string(owner) + " element";
    if (fallback.empty()) fallback = std::string(owner) + " (field unknown)";
  }
  return fallback.empty() ? std::string("root") : fallback;
}

NodeIndex InspectInput::node_at(uint64_t address) const {
  auto found = graph.find_object(address);
  return found ? *found : kNoNode;
}

std::string_view InspectInput::content_at(uint64_t address) const {
  auto it = std::lower_bound(contents.begin(), contents.end(), address,
                             [](const StringContent& c, uint64_t a) { return c.address < a; });
  return it != contents.end() && it->address == address ? it->text : std::string_view();
}

uint64_t union_bytes(const DominatorTree& dominators, std::span<const CountedObject> objects) {
  std::unordered_map<NodeIndex, const CountedObject*> largest;
  largest.reserve(objects.size());
  for (const CountedObject& o : objects) {
    auto [it, added] = largest.emplace(o.node, &o);
    if (!added && (o.bytes > it->second->bytes || (o.retained && !it->second->retained))) it->second = &o;
  }
  uint64_t total = 0;
  for (const auto& [node, counted] : largest) {
    // Inside the retained size of an object counted with it: counted there already.
    bool covered = false;
    for (NodeIndex up = dominators.immediate_dominator(node); !covered && up != kNoNode && up != kVirtualRoot;
         up = dominators.immediate_dominator(up)) {
      auto above = largest.find(up);
      covered = above != largest.end() && above->second->retained;
    }
    if (!covered) total += counted->bytes;
  }
  return total;
}

Result<InspectReport> inspect_heap(const InspectInput& in) {
  try {
    InspectReport report;
    std::vector<CountedObject> all;
    for (const FindingRule* rule : finding_rules()) {
      std::vector<Finding> found;
      GCSNAP_RETURN_IF_ERROR(rule->find(in, found));
      if (found.empty()) continue;
      std::vector<CountedObject> of_kind;
      for (Finding& f : found) {
        f.bytes = union_bytes(in.dominators, f.objects);
        of_kind.insert(of_kind.end(), f.objects.begin(), f.objects.end());
      }
      std::stable_sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) { return a.bytes > b.bytes; });
      report.totals.push_back(InspectTotal{std::string(rule->kind()), found.size(), union_bytes(in.dominators, of_kind)});
      all.insert(all.end(), of_kind.begin(), of_kind.end());
      for (Finding& f : found) report.findings.push_back(std::move(f));
    }
    report.bytes = union_bytes(in.dominators, all);
    return report;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "inspecting the heap");
  }
}

}  // namespace gcsnap
