// Caches at their limit (a MemoryCache whose size has reached its SizeLimit, format-spec.md
// §6.25 kind 7): it evicts on every insert, so what it holds is what it may hold; the bytes are
// its retained size. A cache without a size limit, or whose size the recorder could not read,
// is never reported.
#include <string>

#include "analysis/inspect_rules.hpp"

namespace gcsnap {
namespace {

class CachesAtLimit final : public FindingRule {
 public:
  std::string_view kind() const noexcept override { return "cache-at-limit"; }
  Status find(const InspectInput& in, std::vector<Finding>& out) const override {
    for (const CollectionValue& c : in.collections) {
      if (c.kind != CollectionKind::MemoryCache || c.limit == 0 || c.capacity < c.limit) continue;
      const NodeIndex node = in.node_at(c.address);
      if (node == kNoNode || !in.dominators.is_reachable(node)) continue;
      Finding f;
      f.kind = kind();
      f.holder = in.holder_of(node);
      f.count = 1;
      f.what = std::string(in.type_name(node)) + ": size " + std::to_string(c.capacity) + " of limit " +
               std::to_string(c.limit) + ", " + std::to_string(c.count) + " entries";
      f.objects.push_back({node, in.dominators.retained_size(node), true});
      out.push_back(std::move(f));
    }
    return {};
  }
};

}  // namespace

const FindingRule& caches_at_limit_rule() {
  static const CachesAtLimit rule;
  return rule;
}

}  // namespace gcsnap
