// Duplicate strings (dotMemory "Duplicate strings", MAT "Duplicate Strings"): strings of equal
// length and keyed hash (format-spec.md §6.23) are copies of one content; all copies but one
// (the lowest address) are wasted. One finding per field that holds wasted copies, since the
// field is where a developer interns or shares the value.
#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/inspect_rules.hpp"

namespace gcsnap {
namespace {

struct Copy {
  uint64_t hash;
  uint32_t length;
  NodeIndex node;
  uint64_t address;
};

struct HolderWaste {
  Finding finding;
  std::map<std::pair<uint64_t, uint32_t>, uint64_t> values;  ///< (hash, length) -> copies wasted here
};

class DuplicateStrings final : public FindingRule {
 public:
  std::string_view kind() const noexcept override { return "duplicate-strings"; }

  Status find(const InspectInput& in, std::vector<Finding>& out) const override {
    std::vector<Copy> copies;
    copies.reserve(in.strings.size());
    for (const StringValue& s : in.strings) {
      const NodeIndex node = in.node_at(s.address);
      if (node != kNoNode && in.dominators.is_reachable(node)) copies.push_back({s.hash, s.length, node, s.address});
    }
    std::sort(copies.begin(), copies.end(), [](const Copy& a, const Copy& b) {
      return std::tie(a.hash, a.length, a.address) < std::tie(b.hash, b.length, b.address);
    });
    std::map<std::string, HolderWaste> by_holder;
    for (size_t first = 0; first < copies.size();) {
      size_t end = first + 1;
      while (end < copies.size() && copies[end].hash == copies[first].hash && copies[end].length == copies[first].length)
        ++end;
      for (size_t k = first + 1; k < end; ++k) {  // the first (lowest address) copy is the one kept
        const Copy& c = copies[k];
        HolderWaste& h = by_holder[in.holder_of(c.node)];
        h.finding.objects.push_back({c.node, in.graph.object_size(c.node), true});
        h.values[{c.hash, c.length}] += 1;
        if (h.finding.example.empty()) h.finding.example = std::string(in.content_at(copies[first].address));
      }
      first = end;
    }
    for (auto& [holder, h] : by_holder) {
      Finding& f = h.finding;
      f.kind = kind();
      f.holder = holder;
      f.count = f.objects.size();
      const auto top = std::max_element(h.values.begin(), h.values.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
      f.what = std::to_string(f.count) + " wasted copies of " + std::to_string(h.values.size()) +
               " values (most: " + std::to_string(top->second) + " more copies of a string of " +
               std::to_string(top->first.second) + " chars)";
      out.push_back(std::move(f));
    }
    return {};
  }
};

}  // namespace

const FindingRule& duplicate_strings_rule() {
  static const DuplicateStrings rule;
  return rule;
}

}  // namespace gcsnap
