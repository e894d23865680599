// Timer leaks: System.Threading.Timer objects still in the runtime's timer queues, which keep
// their callback and its target (the owner) alive until they are disposed. One finding per
// (callback method, owner field) with more than one timer; the holder is every timer queue
// at once, as `leaks` names it (holder_patterns.hpp). The bytes are each queued timer's own
// size and the retained sizes of its callback and state: the owner only the timer keeps alive,
// with its Timer. The queue's next timers are not counted (the list's links dominate them).
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "analysis/inspect_rules.hpp"
#include "analysis/pattern_hops.hpp"
#include "gcsnap/holder_patterns.hpp"

namespace gcsnap {
namespace {

// A service keeps a few timers of one kind; two or more of one callback and owner field is
// where a leak starts.
constexpr uint64_t kMinTimers = 2;
constexpr std::string_view kQueueType = "System.Threading.TimerQueue";
constexpr std::string_view kTimerType = "System.Threading.TimerQueueTimer";

// The holder's name, from the holder-pattern rules: every timer queue is one holder.
std::string timer_holder() {
  const std::string_view types[] = {kQueueType, kTimerType};
  HopField head;
  head.kind = EdgeNameKind::Field;
  head.text = "_shortTimers";
  const HopField fields[] = {HopField{}, head};
  return match_holder_pattern(types, fields).holder;
}

// Whether TIMER is linked into a queue: the queue or a neighbouring timer references it (a
// fired one-shot or disposed timer is unlinked).
bool is_queued(const InspectInput& in, NodeIndex timer) {
  for (NodeIndex from : in.graph.predecessors(timer)) {
    const std::string_view type = in.type_name(from);
    if (from != timer && (type == kQueueType || type == kTimerType)) return true;
  }
  return false;
}

class Timers final : public FindingRule {
 public:
  std::string_view kind() const noexcept override { return "timers"; }

  Status find(const InspectInput& in, std::vector<Finding>& out) const override {
    const PatternContext context{in.graph, in.names, in.namer, in.delegates};
    std::map<uint32_t, bool> is_timer_type;
    std::map<std::pair<std::string, std::string>, Finding> groups;  // (method, owner field)
    std::map<std::pair<std::string, std::string>, std::string> owners;
    for (NodeIndex timer = 0; timer < in.graph.node_count(); ++timer) {
      const uint32_t type = in.graph.type_id(timer);
      auto [known, added] = is_timer_type.emplace(type, false);
      if (added) known->second = in.names.type_name(type) == kTimerType;
      if (!known->second || !in.dominators.is_reachable(timer) || !is_queued(in, timer)) continue;
      const PatternTarget target = describe_pattern_target(context, HolderPattern::Timer, {&timer, 1});
      const std::pair<std::string, std::string> key{target.call.method, target.owner_field};
      Finding& f = groups[key];
      if (f.objects.empty()) owners[key] = target.target_type;
      f.objects.push_back({timer, in.graph.object_size(timer), false});
      if (target.call.found) f.objects.push_back({target.call.delegate, in.dominators.retained_size(target.call.delegate), true});
      const NodeIndex state = detail::successor_named(context, timer, {"_state"});
      if (state != kNoNode) f.objects.push_back({state, in.dominators.retained_size(state), true});
      ++f.count;
    }
    const std::string holder = timer_holder();
    for (auto& [key, f] : groups) {
      if (f.count < kMinTimers) continue;
      f.kind = kind();
      f.holder = holder;
      f.method = key.first;
      const std::string& owner = owners[key];
      f.what = std::to_string(f.count) + " queued timers" + (owner.empty() ? "" : " calling back " + owner) +
               (key.second.empty() ? "" : ", kept in " + key.second);
      out.push_back(std::move(f));
    }
    return {};
  }
};

}  // namespace

const FindingRule& timers_rule() {
  static const Timers rule;
  return rule;
}

}  // namespace gcsnap
