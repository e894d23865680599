// Holder patterns on named paths (holder_patterns.hpp): the paths are those the e2e app
// tests/e2e/holder_patterns_app leaves on .NET 8 and 11 (field names differ between them), and
// near misses that must not match.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/holder_patterns.hpp"

namespace gcsnap {

namespace {

// A path from hop specs: "Type" for an object reached through an unnamed edge, "Type|field"
// for one whose edge in is FIELD, "|Ns.C.s_f" for a static (its hop's type after a '!').
struct Path {
  std::vector<std::string> types;
  std::vector<HopField> fields;
  std::vector<std::string_view> views() const { return {types.begin(), types.end()}; }
};

Path make_path(std::initializer_list<std::pair<std::string, std::string>> hops) {
  Path p;
  bool first = true;
  for (const auto& [type, field] : hops) {
    p.types.push_back(type);
    HopField f;
    if (!first && !field.empty()) {
      f.is_static = field[0] == '!';
      f.text = f.is_static ? field.substr(1) : field;
      f.kind = f.text[0] == '[' ? EdgeNameKind::Element : EdgeNameKind::Field;
    }
    p.fields.push_back(f);
    first = false;
  }
  return p;
}

HolderPatternMatch match(const Path& p) { return match_holder_pattern(p.views(), p.fields); }

}  // namespace

TEST_CASE("a static event is its holder, not the invocation list", "[patterns]") {
  for (const char* list : {"_invocationList", "_helperObject"}) {  // .NET 8-10, .NET 11
    const Path p = make_path({{"System.Object[]", ""},
                              {"System.EventHandler", "!Ns.ConfigWatcher.Changed"},
                              {"System.Object[]", list},
                              {"System.EventHandler", "[3]"}});
    const HolderPatternMatch m = match(p);
    CHECK(m.pattern == HolderPattern::StaticEvent);
    CHECK(m.holder == "Ns.ConfigWatcher.Changed");
    CHECK(m.is_static);
    CHECK(m.structure_hop == 1);
    CHECK(m.link == std::string("System.EventHandler.") + list);
  }
}

TEST_CASE("an instance event names its object's field", "[patterns]") {
  const Path p = make_path({{"System.Object[]", ""},
                            {"Ns.Publisher", "!Ns.Program.s_publisher"},
                            {"System.EventHandler", "Updated"},
                            {"System.Object[]", "_invocationList"},
                            {"System.EventHandler", "[0]"}});
  const HolderPatternMatch m = match(p);
  CHECK(m.pattern == HolderPattern::InstanceEvent);
  CHECK(m.holder == "Ns.Publisher.Updated");
  CHECK_FALSE(m.is_static);
  CHECK(m.holder_hop == 1);
}

TEST_CASE("every timer queue is one holder", "[patterns]") {
  const Path p = make_path({{"System.Object[]", ""},
                            {"System.Threading.TimerQueue[]", "!System.Threading.TimerQueue.<Instances>k__BackingField"},
                            {"System.Threading.TimerQueue", "[1]"},
                            {"System.Threading.TimerQueueTimer", "_longTimers"},
                            {"System.Threading.TimerQueueTimer", "_next"}});
  const HolderPatternMatch m = match(p);
  CHECK(m.pattern == HolderPattern::Timer);
  CHECK(m.holder == "System.Threading.TimerQueue.Instances");
  CHECK(m.link == "System.Threading.TimerQueueTimer._next");
}

TEST_CASE("the structures named by their holder's field", "[patterns]") {
  struct Case {
    Path path;
    HolderPattern pattern;
    std::string holder;
  };
  const std::vector<Case> cases{
      {make_path({{"System.Object[]", ""},
                  {"System.Threading.CancellationTokenSource", "!Ns.Program.s_stopping"},
                  {"System.Threading.CancellationTokenSource+Registrations", "_registrations"},
                  {"System.Threading.CancellationTokenSource+CallbackNode", "Callbacks"}}),
       HolderPattern::TokenRegistration, "Ns.Program.s_stopping"},
      {make_path({{"System.Object[]", ""},
                  {"Microsoft.Extensions.Caching.Memory.MemoryCache", "!Ns.Program.s_reports"},
                  {"Microsoft.Extensions.Caching.Memory.MemoryCache+CoherentState", "_coherentState"}}),
       HolderPattern::MemoryCache, "Ns.Program.s_reports"},
      {make_path({{"System.Object[]", ""},
                  {"Microsoft.Extensions.DependencyInjection.ServiceProvider", "!Ns.Program.s_services"},
                  {"Microsoft.Extensions.DependencyInjection.ServiceLookup.ServiceProviderEngineScope",
                   "<Root>k__BackingField"},
                  {"System.Collections.Generic.List<System.Object>", "_disposables"}}),
       HolderPattern::DiRootScope,
       "Microsoft.Extensions.DependencyInjection.ServiceLookup.ServiceProviderEngineScope._disposables"},
      {make_path({{"System.Object[]", ""},
                  {"System.Diagnostics.DiagnosticListener", "!Ns.Program.s_diagnostics"},
                  {"System.Diagnostics.DiagnosticListener+DiagnosticSubscription", "_subscriptions"}}),
       HolderPattern::DiagnosticListener, "Ns.Program.s_diagnostics"},
      {make_path({{"System.Object[]", ""},
                  {"System.Diagnostics.SynchronizedList<System.Diagnostics.ActivityListener>",
                   "!System.Diagnostics.ActivitySource.s_allListeners"},
                  {"System.Collections.Generic.List<System.Diagnostics.ActivityListener>", "_list"}}),  // .NET 8
       HolderPattern::ActivityListener, "System.Diagnostics.ActivitySource.s_allListeners"},
      {make_path({{"System.Object[]", ""},
                  {"System.Diagnostics.SynchronizedList<System.Diagnostics.ActivityListener>",
                   "!System.Diagnostics.ActivitySource.s_allListeners"},
                  {"System.Diagnostics.ActivityListener[]", "_volatileArray"}}),  // .NET 9-11
       HolderPattern::ActivityListener, "System.Diagnostics.ActivitySource.s_allListeners"},
      {make_path({{"System.Object[]", ""},
                  {"System.Threading.Tasks.TaskCompletionSource", "!Ns.Program.s_open"},
                  {"System.Threading.Tasks.Task", "_task"},
                  {"System.Collections.Generic.List<System.Object>", "m_continuationObject"}}),
       HolderPattern::AsyncWait, "Ns.Program.s_open"},
      {make_path({{"System.Object[]", ""},
                  {"System.Collections.Concurrent.ConcurrentDictionary<System.Int32, Ns.Item>", "!Ns.Program.s_items"},
                  {"System.Collections.Concurrent.ConcurrentDictionary<System.Int32, Ns.Item>+Tables", "_tables"}}),
       HolderPattern::StaticCollection, "Ns.Program.s_items"},
  };
  for (const Case& c : cases) {
    INFO(c.holder);
    const HolderPatternMatch m = match(c.path);
    CHECK(m.pattern == c.pattern);
    CHECK(m.holder == c.holder);
  }
}

TEST_CASE("paths without a pattern match none", "[patterns]") {
  // A List in an object's field, a static dictionary's neighbour type, unnamed edges.
  CHECK(match(make_path({{"System.Object[]", ""}, {"Ns.Registry", "!Ns.Program.s_registry"},
                         {"System.Collections.Generic.List<Ns.Item>", "Items"}, {"Ns.Item[]", "_items"}}))
            .pattern == HolderPattern::None);
  CHECK(match(make_path({{"System.Object[]", ""}, {"System.Threading.TimerQueue", ""},
                         {"System.Threading.TimerQueueTimer", ""}}))
            .pattern == HolderPattern::None);
  CHECK(match(make_path({{"System.Object[]", ""}, {"System.Threading.TimerQueue", "!X.y"},
                         {"System.Threading.TimerQueueTimer", "m_timers"}}))
            .pattern == HolderPattern::None);
  const Path p = make_path({{"A", ""}, {"B", "x"}});
  CHECK(match_holder_pattern(p.views(), std::span<const HopField>(p.fields).first(1)).pattern == HolderPattern::None);
}

TEST_CASE("methods read as the source names them", "[patterns]") {
  CHECK(method_display_name("Ns.PollSession.<Start>b__3_0") == "<lambda> in Ns.PollSession.Start");
  CHECK(method_display_name("Ns.Program+<>c.<Main>b__0_0") == "<lambda> in Ns.Program.Main");
  CHECK(method_display_name("Ns.Program+<>c__DisplayClass2_0.<Run>b__1") == "<lambda> in Ns.Program.Run");
  CHECK(method_display_name("Ns.Program.<Run>g__Tick|2_0") == "<local Tick> in Ns.Program.Run");
  CHECK(method_display_name("Ns.Subscriber.OnChanged") == "Ns.Subscriber.OnChanged");
  CHECK(method_display_name("Ns.Box<System.Int32>.Get") == "Ns.Box<System.Int32>.Get");
  CHECK(method_display_name("OnChanged") == "OnChanged");
  CHECK(async_method_of("System.Runtime.CompilerServices.AsyncTaskMethodBuilder<System.Threading.Tasks.VoidTaskResult>+"
                        "AsyncStateMachineBox<Ns.Program+<WaitAsync>d__12>") == "Ns.Program.WaitAsync");
  CHECK(async_method_of("Ns.Program+<WaitAsync>d__12") == "Ns.Program.WaitAsync");
  CHECK(async_method_of("System.Threading.Tasks.Task") == "");
}

}  // namespace gcsnap
