// What a holder pattern keeps, read from the graph at the path's last object: the registered
// delegate and its method, a timer owner's field, an async method (holder_patterns.hpp).
#include "gcsnap/holder_patterns.hpp"
#include "pattern_hops.hpp"

namespace gcsnap {

namespace {

using detail::successor_named;
using detail::type_of;

// Where angle brackets close at depth 0: the '.' before a method name of "Ns.Type<A.B>.M".
size_t last_dot_outside_brackets(std::string_view s) {
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == '>') ++depth;
    else if (s[i] == '<') --depth;
    else if (s[i] == '.' && depth == 0) return i;
  }
  return std::string_view::npos;
}

// "Ns.Type+<>c" and "Ns.Type+<>c__DisplayClass3_0" are the compiler's closure classes of Ns.Type.
std::string_view without_closure_class(std::string_view type) {
  const size_t at = type.rfind("+<>c");
  return at == std::string_view::npos ? type : type.substr(0, at);
}

// The owner's field that keeps the System.Threading.Timer whose queue entry is TIMER: Timer
// -> TimerHolder -> TimerQueueTimer (or Timer -> TimerQueueTimer when nothing finalizes it).
std::string timer_owner_field(const PatternContext& c, NodeIndex owner, NodeIndex timer) {
  const auto succ = c.graph.successors(owner);
  for (size_t j = 0; j < succ.size(); ++j) {
    if (type_of(c, succ[j]) != "System.Threading.Timer") continue;
    NodeIndex next = successor_named(c, succ[j], {"_timer"});
    if (next != kNoNode && next != timer) next = successor_named(c, next, {"_timer"});
    if (next != timer) continue;
    const HopField f = c.namer.name_successor(owner, j);
    if (f.kind == EdgeNameKind::Unknown) return {};
    return std::string(type_of(c, owner)) + "." + f.text;
  }
  return {};
}

// The last object of TYPE on PATH, or kNoNode.
NodeIndex last_of_type(const PatternContext& c, std::span<const NodeIndex> path, std::string_view type) {
  for (size_t i = path.size(); i-- > 0;)
    if (type_of(c, path[i]) == type) return path[i];
  return kNoNode;
}

void describe_delegate_at(const PatternContext& c, PatternTarget& t, NodeIndex from,
                          std::initializer_list<std::string_view> fields) {
  if (from == kNoNode) return;
  const NodeIndex d = successor_named(c, from, fields);
  t.call = resolve_delegate(c, d);
  t.target_type = t.call.target_type;
}

}  // namespace

std::string method_display_name(std::string_view method) {
  const size_t dot = last_dot_outside_brackets(method);
  if (dot == std::string_view::npos) return std::string(method);
  const std::string_view type = method.substr(0, dot), name = method.substr(dot + 1);
  const size_t close = name.find('>');
  if (name.size() < 3 || name[0] != '<' || close == std::string_view::npos) return std::string(method);
  const std::string_view outer = name.substr(1, close - 1), kind = name.substr(close + 1);
  const std::string in = std::string(without_closure_class(type)) + "." + std::string(outer);
  if (kind.starts_with("b__")) return "<lambda> in " + in;
  if (kind.starts_with("g__")) {
    const std::string_view local = kind.substr(3, kind.find('|') == std::string_view::npos ? kind.npos : kind.find('|') - 3);
    return "<local " + std::string(local) + "> in " + in;
  }
  return std::string(method);
}

std::string async_method_of(std::string_view type) {
  const size_t end = type.find(">d__");
  if (end == std::string_view::npos) return {};
  const size_t open = type.rfind("+<", end);
  if (open == std::string_view::npos) return {};
  const size_t start = type.find_last_of("<,[ ", open);
  const std::string_view owner = type.substr(start == std::string_view::npos ? 0 : start + 1,
                                             open - (start == std::string_view::npos ? 0 : start + 1));
  return std::string(owner) + "." + std::string(type.substr(open + 2, end - open - 2));
}

PatternTarget describe_pattern_target(const PatternContext& c, HolderPattern pattern, std::span<const NodeIndex> path) {
  PatternTarget t;
  if (path.empty()) return t;
  const NodeIndex member = path.back();
  switch (pattern) {
    case HolderPattern::StaticEvent:
    case HolderPattern::InstanceEvent:
      // The handler: the member when it is a delegate, else the last delegate on the path.
      for (size_t i = path.size(); i-- > 0 && !t.call.found;) t.call = resolve_delegate(c, path[i]);
      t.target_type = t.call.target_type;
      break;
    case HolderPattern::Timer: {
      NodeIndex timer = last_of_type(c, path, "System.Threading.TimerQueueTimer");
      if (timer == kNoNode) timer = member;
      describe_delegate_at(c, t, timer, {"_timerCallback"});
      const NodeIndex owner = t.call.found ? successor_named(c, t.call.delegate, {"_target"}) : kNoNode;
      if (owner != kNoNode && owner != t.call.delegate) t.owner_field = timer_owner_field(c, owner, timer);
      break;
    }
    case HolderPattern::TokenRegistration: {
      // Register(Action) stores the runtime's shunt as the callback and the Action as its state.
      const NodeIndex node = last_of_type(c, path, "System.Threading.CancellationTokenSource+CallbackNode");
      describe_delegate_at(c, t, node, {"CallbackState"});
      if (!t.call.found) describe_delegate_at(c, t, node, {"Callback"});
      break;
    }
    case HolderPattern::DiagnosticListener: {
      const NodeIndex s = last_of_type(c, path, "System.Diagnostics.DiagnosticListener+DiagnosticSubscription");
      const NodeIndex o = s == kNoNode ? kNoNode : successor_named(c, s, {"Observer"});
      if (o != kNoNode) t.target_type = type_of(c, o);
      break;
    }
    case HolderPattern::ActivityListener:
      describe_delegate_at(c, t, last_of_type(c, path, "System.Diagnostics.ActivityListener"),
                           {"<Sample>k__BackingField", "<ActivityStarted>k__BackingField",
                            "<ActivityStopped>k__BackingField", "<SampleUsingParentId>k__BackingField"});
      break;
    case HolderPattern::AsyncWait:
      for (size_t i = path.size(); i-- > 0 && t.async_method.empty();) t.async_method = async_method_of(type_of(c, path[i]));
      break;
    case HolderPattern::MemoryCache:
    case HolderPattern::StaticCollection: {
      // A dictionary node's value, and a cache entry's value in turn.
      NodeIndex v = successor_named(c, member, {"_value"});
      if (v != kNoNode && type_of(c, v) == "Microsoft.Extensions.Caching.Memory.CacheEntry") {
        const NodeIndex inner = successor_named(c, v, {"_value", "<Value>k__BackingField"});
        if (inner != kNoNode) v = inner;
      }
      if (v != kNoNode) t.target_type = type_of(c, v);
      break;
    }
    case HolderPattern::DiRootScope:
      t.target_type = type_of(c, member);
      break;
    case HolderPattern::None:
      break;
  }
  return t;
}

}  // namespace gcsnap
