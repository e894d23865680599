#pragma once
/// The structures where services leak (events, timers, token registrations, caches, the DI
/// root scope, diagnostic subscriptions, async waits), recognized on a named retention path:
/// the holder a developer must change, with its field, the runtime structure between it and
/// the leaked objects, and the delegate's method that was registered (docs/design.md "Holder
/// patterns"). The rules are keyed on type and field, with the field names of every runtime
/// (.NET 8 to 11) in one table, as a recording does not say which runtime wrote it.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/edge_names.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap {

enum class HolderPattern : uint8_t {
  None = 0,
  StaticEvent,         ///< a static event's delegate (its invocation list)
  InstanceEvent,       ///< an object's event field
  Timer,               ///< System.Threading.Timer: the runtime's timer queues
  TokenRegistration,   ///< callbacks registered on a CancellationTokenSource
  MemoryCache,         ///< Microsoft.Extensions.Caching.Memory.MemoryCache entries
  StaticCollection,    ///< a dictionary or collection in a static field
  DiRootScope,         ///< IDisposable transients kept by the DI root scope
  DiagnosticListener,  ///< subscriptions to a DiagnosticListener
  ActivityListener,    ///< listeners added to ActivitySource
  AsyncWait,           ///< async state machines waiting on a task (TaskCompletionSource)
};

/// Return the pattern's name as output shows it ("static event", "timer", ...; "" for None).
std::string_view holder_pattern_name(HolderPattern pattern) noexcept;

/// What a named path says about its holder.
struct HolderPatternMatch {
  HolderPattern pattern = HolderPattern::None;
  /// The field a developer changes: "Ns.ConfigWatcher.Changed" (a static's full name),
  /// "Ns.Publisher.Updated" (the holding object's type and field), "System.Threading.
  /// TimerQueue.Instances" for every timer queue at once.
  std::string holder;
  bool is_static = false;        ///< holder is a static field
  size_t holder_hop = 0;         ///< the hop of the object holding the field (0 for a static)
  size_t structure_hop = 0;      ///< the hop of the runtime structure (the delegate, the queue, ...)
  /// The link of the structure's chain, "Type.field" ("System.Threading.TimerQueueTimer._next"),
  /// or its storage ("System.EventHandler._invocationList"); empty when there is none.
  std::string link;
};

/// Match the named path TYPES (one per hop, root object first) and FIELDS (EdgeNamer::name_path:
/// FIELDS[h] names the edge into hop h) against the patterns; the first structure from the
/// root wins. None when no pattern is on the path or the sizes differ.
HolderPatternMatch match_holder_pattern(std::span<const std::string_view> types, std::span<const HopField> fields);

/// The object a delegate calls and the method it calls, with a delegate's FunctionID from
/// the recording (format-spec.md §6.22).
struct DelegateCall {
  bool found = false;
  NodeIndex delegate = kNoNode;
  std::string delegate_type;
  std::string target_type;   ///< its _target's type ("" for a static method)
  std::string method;        ///< method_display_name of its method ("" when not recorded)
  uint64_t function_id = 0;  ///< 0 when not recorded
  /// A multicast delegate: its invocation list's delegates (the first few), each resolved.
  uint64_t invocation_count = 0;
};

/// What the pattern names beside its holder, read from the graph at the path's last object.
struct PatternTarget {
  DelegateCall call;         ///< the registered delegate (handler, callback), when there is one
  std::string target_type;   ///< what the structure keeps: the subscriber, owner, observer, value
  /// Timer: the owner's field that keeps the System.Threading.Timer ("Ns.PollSession._timer").
  std::string owner_field;
  /// Async: the async method whose state machine waits ("Ns.Program.WaitAsync").
  std::string async_method;
};

/// The graph, names and delegate targets a pattern reads beyond the path.
struct PatternContext {
  const HeapGraph& graph;
  const NameTable& names;
  const EdgeNamer& namer;
  std::span<const DelegateTarget> delegates;  ///< sorted by address; may be empty
};

/// Read what PATTERN keeps along PATH (root object first; its last object a leaked member):
/// the delegate it calls and its target, a timer owner's field, a state machine's method.
/// Fields left empty when unknown.
PatternTarget describe_pattern_target(const PatternContext& context, HolderPattern pattern,
                                      std::span<const NodeIndex> path);

/// Resolve the delegate at NODE (any delegate type: it has a _target or _invocationList
/// field): its target's type and its method (the first of a multicast's list).
DelegateCall resolve_delegate(const PatternContext& context, NodeIndex node);

/// Return a method's name as a developer finds it in the source: "Ns.PollSession.Start"
/// lambdas as "<lambda> in Ns.PollSession.Start" (also those of "+<>c" and "+<>c__DisplayClass"
/// closures), local functions as "<local Name> in Ns.Type.Method", others unchanged.
std::string method_display_name(std::string_view method);

/// Return the async method of a state machine type ("Ns.Program+<WaitAsync>d__12", also inside
/// an AsyncStateMachineBox<...>'s arguments) as "Ns.Program.WaitAsync", or "" when TYPE names none.
std::string async_method_of(std::string_view type);

/// Return whether TYPE is one of the delegate types a path shows with its method: its layout
/// (NAMES) has the System.Delegate field _target.
bool is_delegate_type(const NameTable& names, uint32_t type_id);

}  // namespace gcsnap
