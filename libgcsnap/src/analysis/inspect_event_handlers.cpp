// Event-handler leaks (dotMemory "Event handlers leak"): an event (a static or instance field
// holding a multicast delegate) whose invocation list holds one method subscribed several
// times, once per subscriber that never unsubscribed. The holder and its naming are those of
// `leaks` (holder_patterns.hpp: the event field, not the invocation list); one finding per
// (event field, handler method), over every object whose field it is. The bytes are the
// handlers' retained sizes: each delegate and the subscriber only it keeps alive.
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "analysis/inspect_rules.hpp"
#include "analysis/pattern_hops.hpp"
#include "gcsnap/holder_patterns.hpp"

namespace gcsnap {
namespace {

// One subscription is how an event is used; a method subscribed twice to one field is the
// first sign of subscribers that are never removed.
constexpr uint64_t kMinSubscriptions = 2;

struct EventGroup {
  Finding finding;
  std::string delegate_type;
  std::map<std::string, uint64_t> targets;  ///< subscriber type -> subscriptions
};

// The event field that holds the multicast delegate EVENT (with invocation list LIST), named
// by the holder patterns: None when no object field (or static) holds it as an event.
HolderPatternMatch match_event_field(const InspectInput& in, NodeIndex event, NodeIndex list) {
  for (NodeIndex from : in.graph.predecessors(event)) {
    if (from == event) continue;
    const HopField field = in.namer.name_edge(from, event);
    if (field.kind != EdgeNameKind::Field) continue;  // an array's element is a collection of delegates
    const std::string_view types[] = {in.type_name(from), in.type_name(event), in.type_name(list)};
    const HopField fields[] = {HopField{}, field, in.namer.name_edge(event, list)};
    HolderPatternMatch m = match_holder_pattern(types, fields);
    if (m.pattern == HolderPattern::StaticEvent || m.pattern == HolderPattern::InstanceEvent) return m;
  }
  return {};
}

// Whether each type id is a delegate type, asked of the layouts once per type.
class DelegateTypes {
 public:
  explicit DelegateTypes(const NameTable& names) : names_(names) {}
  bool contains(uint32_t type_id) {
    auto [it, added] = known_.emplace(type_id, false);
    if (added) it->second = is_delegate_type(names_, type_id);
    return it->second;
  }

 private:
  const NameTable& names_;
  std::map<uint32_t, bool> known_;
};

class EventHandlers final : public FindingRule {
 public:
  std::string_view kind() const noexcept override { return "event-handlers"; }

  Status find(const InspectInput& in, std::vector<Finding>& out) const override {
    const PatternContext context{in.graph, in.names, in.namer, in.delegates};
    DelegateTypes delegates(in.names);
    std::map<std::pair<std::string, std::string>, EventGroup> groups;  // (event field, method)
    for (NodeIndex event = 0; event < in.graph.node_count(); ++event) {
      if (!in.dominators.is_reachable(event) || !delegates.contains(in.graph.type_id(event))) continue;
      // .NET 8-10 keep a multicast's delegates in _invocationList, .NET 11 behind _helperObject.
      const NodeIndex list = detail::successor_named(context, event, {"_invocationList", "_helperObject"});
      if (list == kNoNode || !in.type_name(list).ends_with("[]")) continue;
      const HolderPatternMatch m = match_event_field(in, event, list);
      if (m.pattern == HolderPattern::None) continue;
      for (NodeIndex handler : in.graph.successors(list)) {
        if (handler == event || !delegates.contains(in.graph.type_id(handler))) continue;
        const DelegateCall call = resolve_delegate(context, handler);
        EventGroup& g = groups[{m.holder, call.method}];
        if (g.finding.kind.empty()) {
          g.finding.kind = kind();
          g.finding.holder = m.holder;
          g.finding.method = call.method;
          g.finding.what = std::string(holder_pattern_name(m.pattern));
          g.delegate_type = std::string(in.type_name(event));
        }
        ++g.targets[call.target_type.empty() ? std::string("a static method") : call.target_type];
        g.finding.objects.push_back({handler, in.dominators.retained_size(handler), true});
      }
    }
    for (auto& [key, g] : groups) {
      Finding& f = g.finding;
      f.count = f.objects.size();
      if (f.count < kMinSubscriptions) continue;
      const auto top = std::max_element(g.targets.begin(), g.targets.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
      f.what = std::to_string(f.count) + " " + g.delegate_type + " handlers on the " + f.what + ", subscribers " +
               top->first + (g.targets.size() > 1 ? " and " + std::to_string(g.targets.size() - 1) + " other types" : "");
      out.push_back(std::move(f));
    }
    return {};
  }
};

}  // namespace

const FindingRule& event_handlers_rule() {
  static const EventHandlers rule;
  return rule;
}

}  // namespace gcsnap
