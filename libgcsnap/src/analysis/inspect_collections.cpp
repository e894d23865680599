// Empty and sparse collections (dotMemory "Empty collections" and "Sparse collections", MAT
// "Empty Collections" and "Collection Fill Ratio"), from the counts and capacities the
// recorder read (format-spec.md §6.25). An empty collection wastes all it retains; a sparse
// one (at most a quarter full, 16 slots or more) the unused part of its largest array.
#include <string>

#include "analysis/inspect_rules.hpp"

namespace gcsnap {
namespace {

constexpr uint64_t kSparseMinCapacity = 16;
constexpr uint64_t kArrayHeader = 24;

bool is_collection(CollectionKind kind) {
  return kind != CollectionKind::MemoryCache && kind != CollectionKind::EmptyArray;
}

// The collection's storage: the largest array it refers to.
NodeIndex storage_of(const InspectInput& in, NodeIndex node) {
  NodeIndex best = kNoNode;
  for (NodeIndex to : in.graph.successors(node)) {
    if (!in.type_name(to).ends_with("]")) continue;
    if (best == kNoNode || in.graph.object_size(to) > in.graph.object_size(best)) best = to;
  }
  return best;
}

std::string short_type(const InspectInput& in, NodeIndex node) { return std::string(in.type_name(node)); }

class EmptyCollections final : public FindingRule {
 public:
  std::string_view kind() const noexcept override { return "empty-collection"; }
  Status find(const InspectInput& in, std::vector<Finding>& out) const override {
    for (const CollectionValue& c : in.collections) {
      if (!is_collection(c.kind) || c.count != 0) continue;
      const NodeIndex node = in.node_at(c.address);
      if (node == kNoNode || !in.dominators.is_reachable(node)) continue;
      Finding f;
      f.kind = kind();
      f.holder = in.holder_of(node);
      f.count = 1;
      f.what = short_type(in, node) + ": 0 of " + std::to_string(c.capacity);
      f.objects.push_back({node, in.dominators.retained_size(node), true});
      out.push_back(std::move(f));
    }
    return {};
  }
};

class SparseCollections final : public FindingRule {
 public:
  std::string_view kind() const noexcept override { return "sparse-collection"; }
  Status find(const InspectInput& in, std::vector<Finding>& out) const override {
    for (const CollectionValue& c : in.collections) {
      if (!is_collection(c.kind) || c.count == 0 || c.capacity < kSparseMinCapacity || c.count * 4 > c.capacity)
        continue;
      const NodeIndex node = in.node_at(c.address);
      if (node == kNoNode || !in.dominators.is_reachable(node)) continue;
      const NodeIndex storage = storage_of(in, node);
      if (storage == kNoNode) continue;
      Finding f;
      f.kind = kind();
      f.holder = in.holder_of(node);
      f.count = 1;
      f.what = short_type(in, node) + ": " + std::to_string(c.count) + " of " + std::to_string(c.capacity);
      // An array is 24 bytes of header and length, then its elements.
      const uint64_t size = in.graph.object_size(storage);
      const uint64_t element = size > kArrayHeader ? (size - kArrayHeader) / c.capacity : 0;
      f.objects.push_back({storage, element * (c.capacity - c.count), false});
      out.push_back(std::move(f));
    }
    return {};
  }
};

}  // namespace

const FindingRule& empty_collections_rule() {
  static const EmptyCollections rule;
  return rule;
}

const FindingRule& sparse_collections_rule() {
  static const SparseCollections rule;
  return rule;
}

}  // namespace gcsnap
