// Finalizable objects (dotMemory "Finalizable objects", MAT "Finalizer Overview"): the objects
// the finalizer queue holds (finalizer roots, format-spec.md §5.2) wait for the finalizer
// thread, and keep all they retain alive until it runs. One finding per type.
#include <map>
#include <string>

#include "analysis/inspect_rules.hpp"

namespace gcsnap {
namespace {

class FinalizableObjects final : public FindingRule {
 public:
  std::string_view kind() const noexcept override { return "finalizable"; }
  Status find(const InspectInput& in, std::vector<Finding>& out) const override {
    std::map<std::string, Finding> by_type;
    for (NodeIndex node : in.finalizer_roots) {
      if (!in.dominators.is_reachable(node)) continue;
      Finding& f = by_type[std::string(in.type_name(node))];
      f.objects.push_back({node, in.dominators.retained_size(node), true});
    }
    for (auto& [type, f] : by_type) {
      f.kind = kind();
      f.holder = "finalization queue";
      f.count = f.objects.size();
      f.what = std::to_string(f.count) + " " + type + " awaiting their finalizer";
      out.push_back(std::move(f));
    }
    return {};
  }
};

}  // namespace

const FindingRule& finalizable_objects_rule() {
  static const FinalizableObjects rule;
  return rule;
}

}  // namespace gcsnap
