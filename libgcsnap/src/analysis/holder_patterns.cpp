#include "gcsnap/holder_patterns.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>

#include "pattern_hops.hpp"

namespace gcsnap {

namespace {

// A field's name on each runtime the rules know (.NET 8, 9, 10, 11), from recordings of
// tests/e2e/holder_patterns_app on each: a recording does not say which runtime wrote it, so
// a hop matches the name of any of them.
struct RuntimeFields {
  std::string_view net8, net9, net10, net11;
  bool has(std::string_view field) const noexcept {
    return !field.empty() && (field == net8 || field == net9 || field == net10 || field == net11);
  }
};

// A structure where services leak: a hop of TYPE (exact, or a prefix when PREFIX) whose edge
// out is OUT; LINK is its chain's link or storage as output names it.
struct StructureRule {
  HolderPattern pattern;
  std::string_view type;
  bool prefix;
  RuntimeFields out;
  std::string_view link;
};

// A delegate's multicast storage: .NET 11 keeps the invocation list behind _helperObject (an
// array of Delegate+Wrapper structs).
constexpr RuntimeFields kInvocationList{"_invocationList", "_invocationList", "_invocationList", "_helperObject"};
constexpr RuntimeFields kDelegateTarget{"_target", "_target", "_target", "_target"};

constexpr std::array kRules{
    StructureRule{HolderPattern::Timer, "System.Threading.TimerQueue", false,
                  {"_longTimers", "_longTimers", "_longTimers", "_longTimers"}, "System.Threading.TimerQueueTimer._next"},
    StructureRule{HolderPattern::Timer, "System.Threading.TimerQueue", false,
                  {"_shortTimers", "_shortTimers", "_shortTimers", "_shortTimers"},
                  "System.Threading.TimerQueueTimer._next"},
    StructureRule{HolderPattern::TokenRegistration, "System.Threading.CancellationTokenSource", true,
                  {"_registrations", "_registrations", "_registrations", "_registrations"},
                  "System.Threading.CancellationTokenSource+CallbackNode.Next"},
    StructureRule{HolderPattern::MemoryCache, "Microsoft.Extensions.Caching.Memory.MemoryCache", false,
                  {"_coherentState", "_coherentState", "_coherentState", "_coherentState"},
                  "Microsoft.Extensions.Caching.Memory.CacheEntry"},
    StructureRule{HolderPattern::DiRootScope,
                  "Microsoft.Extensions.DependencyInjection.ServiceLookup.ServiceProviderEngineScope", false,
                  {"_disposables", "_disposables", "_disposables", "_disposables"},
                  "Microsoft.Extensions.DependencyInjection.ServiceLookup.ServiceProviderEngineScope._disposables"},
    StructureRule{HolderPattern::DiagnosticListener, "System.Diagnostics.DiagnosticListener", false,
                  {"_subscriptions", "_subscriptions", "_subscriptions", "_subscriptions"},
                  "System.Diagnostics.DiagnosticListener+DiagnosticSubscription.Next"},
    StructureRule{HolderPattern::ActivityListener, "System.Diagnostics.SynchronizedList<System.Diagnostics.ActivityListener>",
                  false, {"_list", "_volatileArray", "_volatileArray", "_volatileArray"},
                  "System.Diagnostics.ActivityListener"},
    StructureRule{HolderPattern::AsyncWait, "System.Threading.Tasks.TaskCompletionSource", true,
                  {"_task", "_task", "_task", "_task"}, "System.Threading.Tasks.Task.m_continuationObject"},
    StructureRule{HolderPattern::AsyncWait, "System.Threading.Tasks.Task", true,
                  {"m_continuationObject", "m_continuationObject", "m_continuationObject", "m_continuationObject"},
                  "System.Threading.Tasks.Task.m_continuationObject"},
};

// Collections whose static field is the holder when no structure above is on the path.
constexpr std::array<std::string_view, 9> kCollections{
    "System.Collections.Generic.Dictionary<", "System.Collections.Concurrent.ConcurrentDictionary<",
    "System.Collections.Generic.List<",       "System.Collections.Generic.HashSet<",
    "System.Collections.Generic.Queue<",      "System.Collections.Generic.LinkedList<",
    "System.Collections.Concurrent.ConcurrentQueue<", "System.Collections.Concurrent.ConcurrentBag<",
    "System.Collections.Hashtable"};

bool type_is(std::string_view type, std::string_view want, bool prefix) {
  if (!prefix) return type == want;
  return type.substr(0, want.size()) == want;
}

bool is_named(const HopField& f) { return f.kind != EdgeNameKind::Unknown && !f.text.empty(); }

// The field into hop H, as a developer finds it: a static's full name, else the holding
// object's type and field ("Ns.Publisher.Updated"), an element after its array.
void name_holder(HolderPatternMatch& m, std::span<const std::string_view> types, std::span<const HopField> fields,
                 size_t h) {
  m.structure_hop = h;
  if (h == 0 || !is_named(fields[h])) {
    m.holder = h == 0 ? std::string(types[0]) : std::string(types[h - 1]);
    m.holder_hop = h == 0 ? 0 : h - 1;
    return;
  }
  m.holder_hop = h - 1;
  m.is_static = fields[h].is_static;
  if (m.is_static) {
    m.holder = fields[h].text;
    return;
  }
  m.holder = std::string(types[h - 1]);
  if (fields[h].kind != EdgeNameKind::Element) m.holder += '.';
  m.holder += fields[h].text;
}

bool match_event(HolderPatternMatch& m, std::span<const std::string_view> types, std::span<const HopField> fields,
                 size_t h) {
  if (h + 1 >= types.size() || (!types[h].empty() && types[h].back() == ']')) return false;
  const std::string_view out = fields[h + 1].kind == EdgeNameKind::Unknown ? std::string_view{} : fields[h + 1].text;
  if (!kInvocationList.has(out) && !kDelegateTarget.has(out)) return false;
  name_holder(m, types, fields, h);
  m.pattern = m.is_static ? HolderPattern::StaticEvent : HolderPattern::InstanceEvent;
  m.link = std::string(types[h]) + "." + std::string(out);
  return true;
}

}  // namespace

std::string_view holder_pattern_name(HolderPattern pattern) noexcept {
  switch (pattern) {
    case HolderPattern::None: return "";
    case HolderPattern::StaticEvent: return "static event";
    case HolderPattern::InstanceEvent: return "event";
    case HolderPattern::Timer: return "timer";
    case HolderPattern::TokenRegistration: return "token registration";
    case HolderPattern::MemoryCache: return "memory cache";
    case HolderPattern::StaticCollection: return "static collection";
    case HolderPattern::DiRootScope: return "DI scope disposables";
    case HolderPattern::DiagnosticListener: return "diagnostic listener subscription";
    case HolderPattern::ActivityListener: return "activity listener";
    case HolderPattern::AsyncWait: return "async wait";
  }
  return "";
}

HolderPatternMatch match_holder_pattern(std::span<const std::string_view> types, std::span<const HopField> fields) {
  HolderPatternMatch m;
  if (types.size() != fields.size() || types.empty()) return m;
  for (size_t h = 0; h + 1 < types.size(); ++h) {
    const HopField& out = fields[h + 1];
    if (out.kind == EdgeNameKind::Unknown || out.is_static) continue;
    for (const StructureRule& rule : kRules) {
      if (!type_is(types[h], rule.type, rule.prefix) || !rule.out.has(out.text)) continue;
      m.pattern = rule.pattern;
      m.link = rule.link;
      if (rule.pattern == HolderPattern::Timer) {
        // Timers spread over one queue per CPU: all of them are one holder.
        m.holder = "System.Threading.TimerQueue.Instances";
        m.is_static = true;
        m.holder_hop = 0;
        m.structure_hop = h;
      } else if (rule.pattern == HolderPattern::DiRootScope) {
        // Whoever holds the scope, the fix is in what it keeps: transients resolved from it.
        m.holder = rule.link;
        m.holder_hop = h;
        m.structure_hop = h;
      } else if (rule.pattern == HolderPattern::ActivityListener && h > 0 && fields[h].is_static) {
        m.holder = fields[h].text;
        m.is_static = true;
        m.structure_hop = h;
      } else {
        name_holder(m, types, fields, h);
      }
      return m;
    }
    if (match_event(m, types, fields, h)) return m;
  }
  for (size_t h = 1; h < types.size(); ++h) {
    if (!fields[h].is_static) continue;
    for (std::string_view c : kCollections) {
      if (!type_is(types[h], c, true)) continue;
      name_holder(m, types, fields, h);
      m.pattern = HolderPattern::StaticCollection;
      m.link = std::string(types[h]);
      return m;
    }
  }
  return m;
}

namespace detail {

NodeIndex successor_named(const PatternContext& c, NodeIndex from, std::initializer_list<std::string_view> names) {
  const auto succ = c.graph.successors(from);
  for (size_t j = 0; j < succ.size(); ++j) {
    const HopField f = c.namer.name_successor(from, j);
    if (f.kind == EdgeNameKind::Unknown) continue;
    for (std::string_view n : names)
      if (f.text == n) return succ[j];
  }
  return kNoNode;
}

std::string_view type_of(const PatternContext& c, NodeIndex node) { return c.names.type_name(c.graph.type_id(node)); }

}  // namespace detail

namespace {

using detail::successor_named;
using detail::type_of;

uint64_t function_of(const PatternContext& c, uint64_t address) {
  auto it = std::lower_bound(c.delegates.begin(), c.delegates.end(), address,
                             [](const DelegateTarget& d, uint64_t a) { return d.address < a; });
  return it != c.delegates.end() && it->address == address ? it->function_id : 0;
}

}  // namespace

bool is_delegate_type(const NameTable& names, uint32_t type_id) {
  const TypeLayout* layout = names.find_layout(type_id);
  if (!layout || layout->kind != LayoutKind::Object) return false;
  bool target = false, list = false;
  for (const FieldRecord& f : layout->fields) {
    target |= kDelegateTarget.has(f.name);
    list |= kInvocationList.has(f.name);
  }
  return target && list;
}

DelegateCall resolve_delegate(const PatternContext& c, NodeIndex node) {
  DelegateCall call;
  if (node == kNoNode || !is_delegate_type(c.names, c.graph.type_id(node))) return call;
  call.found = true;
  call.delegate = node;
  call.delegate_type = type_of(c, node);
  // A multicast delegate calls its list's delegates: the first of them is the one named.
  const NodeIndex list = successor_named(c, node, {kInvocationList.net8, kInvocationList.net11});
  if (list != kNoNode && c.names.type_name(c.graph.type_id(list)).ends_with("[]")) {
    const auto items = c.graph.successors(list);
    call.invocation_count = items.size();
    for (NodeIndex item : items) {
      if (item == node || !is_delegate_type(c.names, c.graph.type_id(item))) continue;
      DelegateCall first = resolve_delegate(c, item);
      call.target_type = first.target_type;
      call.method = first.method;
      call.function_id = first.function_id;
      return call;
    }
  }
  // A static method's delegate targets itself (or nothing).
  const NodeIndex target = successor_named(c, node, {kDelegateTarget.net8});
  if (target != kNoNode && target != node) call.target_type = type_of(c, target);
  call.function_id = function_of(c, c.graph.address(node));
  if (call.function_id != 0)
    if (const MethodRecord* m = c.names.find_method(call.function_id)) call.method = method_display_name(m->name);
  return call;
}

}  // namespace gcsnap
