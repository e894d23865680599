// inspect_heap's event-handler and timer findings (gcsnap/inspect.hpp) on the handlers sample
// (support/handlers_sample.hpp), whose leaks, holders, methods and bytes are known by
// construction.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "gcsnap/gc_heap.hpp"
#include "gcsnap/heap_inspect.hpp"
#include "handlers_sample.hpp"
#include "temp_path.hpp"

using namespace gcsnap;

namespace {

InspectReport inspect_sample(const std::string& path) {
  auto rec = Recording::open(path);
  REQUIRE(rec);
  GcHeapOptions options;
  options.needs |= kNeedPredecessors | kNeedFieldNames;
  auto heap = GcHeap::open(path, **rec, 0, options);
  REQUIRE(heap);
  auto dominators = (*heap)->find_dominators(false);
  REQUIRE(dominators);
  REQUIRE((*heap)->delegates.size() == 9);
  auto report = inspect_gc(**rec, 0, **heap, **dominators);
  REQUIRE(report);
  return std::move(report).value();
}

std::vector<const Finding*> of_kind(const InspectReport& report, std::string_view kind) {
  std::vector<const Finding*> out;
  for (const Finding& f : report.findings)
    if (f.kind == kind) out.push_back(&f);
  return out;
}

}  // namespace

TEST_CASE("inspect names an event's field and its handlers' method, not the invocation list") {
  test::TempFile snap("inspect-handlers");
  REQUIRE(test::write_handlers_sample(snap.path()));
  const InspectReport report = inspect_sample(snap.path());
  const auto events = of_kind(report, "event-handlers");
  // App.Other.Handle is subscribed once: how an event is used, not a finding.
  REQUIRE(events.size() == 2);
  const Finding& changed = *events[0];
  CHECK(changed.holder == "App.ConfigWatcher.Changed");
  CHECK(changed.method == "App.Subscriber.OnChanged");
  CHECK(changed.count == 3);
  // Each handler retains itself, its subscriber and the subscriber's Byte[]: 64 + 48 + 64.
  CHECK(changed.bytes == 3 * 176);
  CHECK(changed.what.find("static event") != std::string::npos);
  CHECK(changed.what.find("App.Subscriber") != std::string::npos);
  // Two publishers' events share the same two handlers: four subscriptions, counted once.
  const Finding& updated = *events[1];
  CHECK(updated.holder == "App.Publisher.Updated");
  CHECK(updated.method == "App.Listener.OnUpdated");
  CHECK(updated.count == 4);
  CHECK(updated.bytes == 2 * (64 + 40));
}

TEST_CASE("inspect names queued timers by callback and owner field, all queues as one holder") {
  test::TempFile snap("inspect-timers");
  REQUIRE(test::write_handlers_sample(snap.path()));
  const InspectReport report = inspect_sample(snap.path());
  const auto timers = of_kind(report, "timers");
  // The disposed timer (in no queue) is not one of them.
  REQUIRE(timers.size() == 1);
  const Finding& t = *timers[0];
  CHECK(t.holder == "System.Threading.TimerQueue.Instances");
  CHECK(t.method == "<lambda> in App.PollSession.Start");
  CHECK(t.count == 3);
  CHECK(t.what.find("kept in App.PollSession._timer") != std::string::npos);
  // Each queued timer's own 64 B, and its callback's retained size: the delegate (64), its
  // owner (32), the owner's Timer (24) and TimerHolder (24); not the next timers of the list.
  CHECK(t.bytes == 3 * (64 + 64 + 32 + 24 + 24));
  // No object is in two findings: the report's bytes are the findings' sum.
  uint64_t sum = 0;
  for (const Finding& f : report.findings) sum += f.bytes;
  CHECK(report.bytes == sum);
  CHECK(report.bytes == 3 * 176 + 2 * 104 + 3 * 208);
  REQUIRE(report.totals.size() == 2);
  CHECK(report.totals[0].kind == "event-handlers");
  CHECK(report.totals[0].bytes == 3 * 176 + 2 * 104);
  CHECK(report.totals[1].kind == "timers");
}
