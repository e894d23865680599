// Empty and sparse arrays (dotMemory "Empty arrays" and "Sparse arrays", MAT "Zero-length
// arrays" and "Array Fill Ratio"). Arrays of length 0 are marked by the recorder (format-spec.md
// §6.25 kind 8): all but one of a type are wasted, one shared instance (Array.Empty<T>()) would
// do. An array of references at most a quarter full (16 slots or more) that no recorded
// collection owns wastes its null slots (arrays only a root holds, the runtime's statics
// tables, are left out).
#include <algorithm>
#include <map>
#include <string>

#include "analysis/inspect_rules.hpp"

namespace gcsnap {
namespace {

constexpr uint64_t kSparseMinLength = 16;
constexpr uint64_t kArrayHeader = 24;  // the object header, MethodTable pointer and length
constexpr uint64_t kReferenceSize = 8;

class EmptyArrays final : public FindingRule {
 public:
  std::string_view kind() const noexcept override { return "empty-array"; }
  Status find(const InspectInput& in, std::vector<Finding>& out) const override {
    std::map<std::pair<std::string, std::string>, std::vector<NodeIndex>> groups;  // (type, holder)
    std::map<std::string, uint64_t> per_type;
    for (const CollectionValue& c : in.collections) {
      if (c.kind != CollectionKind::EmptyArray) continue;
      const NodeIndex node = in.node_at(c.address);
      if (node == kNoNode || !in.dominators.is_reachable(node)) continue;
      groups[{std::string(in.type_name(node)), in.holder_of(node)}].push_back(node);
      ++per_type[std::string(in.type_name(node))];
    }
    std::map<std::string, bool> kept;  // the first group of a type keeps one array
    for (auto& [key, nodes] : groups) {
      if (per_type[key.first] < 2) continue;
      Finding f;
      f.kind = kind();
      f.holder = key.second;
      const size_t skip = kept[key.first] ? 0 : 1;
      kept[key.first] = true;
      for (size_t k = skip; k < nodes.size(); ++k) f.objects.push_back({nodes[k], in.graph.object_size(nodes[k]), true});
      if (f.objects.empty()) continue;
      f.count = f.objects.size();
      f.what = std::to_string(nodes.size()) + " " + key.first + " of length 0 (" + std::to_string(per_type[key.first]) +
               " of this type in all)";
      out.push_back(std::move(f));
    }
    return {};
  }
};

class SparseArrays final : public FindingRule {
 public:
  std::string_view kind() const noexcept override { return "sparse-array"; }
  Status find(const InspectInput& in, std::vector<Finding>& out) const override {
    for (NodeIndex node = 0; node < in.graph.node_count(); ++node) {
      const TypeLayout* layout = in.names.find_layout(in.graph.type_id(node));
      if (!layout || layout->kind != LayoutKind::ReferenceArray || !in.dominators.is_reachable(node)) continue;
      const uint64_t size = in.graph.object_size(node);
      if (size < kArrayHeader) continue;
      const uint64_t length = (size - kArrayHeader) / kReferenceSize;
      const uint64_t used = in.graph.successors(node).size();
      if (length < kSparseMinLength || used * 4 > length || owned_by_collection(in, node)) continue;
      Finding f;
      f.holder = in.holder_of(node);
      if (f.holder == "root") continue;  // the runtime's own tables (statics, handles), not the app's
      f.kind = kind();
      f.count = 1;
      f.what = std::string(in.type_name(node)) + ": " + std::to_string(used) + " of " + std::to_string(length) + " set";
      f.objects.push_back({node, (length - used) * kReferenceSize, false});
      out.push_back(std::move(f));
    }
    return {};
  }

 private:
  // A collection's storage is judged with its collection (sparse-collection), not twice.
  static bool owned_by_collection(const InspectInput& in, NodeIndex node) {
    for (NodeIndex from : in.graph.predecessors(node)) {
      const uint64_t address = in.graph.address(from);
      auto it = std::lower_bound(in.collections.begin(), in.collections.end(), address,
                                 [](const CollectionValue& c, uint64_t a) { return c.address < a; });
      if (it != in.collections.end() && it->address == address) return true;
    }
    return false;
  }
};

}  // namespace

const FindingRule& empty_arrays_rule() {
  static const EmptyArrays rule;
  return rule;
}

const FindingRule& sparse_arrays_rule() {
  static const SparseArrays rule;
  return rule;
}

}  // namespace gcsnap
