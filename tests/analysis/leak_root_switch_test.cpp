// A leak whose shortest retention path starts at another root from one walk to the next
// (issue 46): its members are followed by identity, so the suspect's series counts every one
// alive at every walk, as the type's own series does, whichever root reaches them then.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "gcsnap/leak_suspects.hpp"
#include "gcsnap/writer.hpp"
#include "leak_rounds.hpp"
#include "temp_path.hpp"

namespace gcsnap {
namespace {

enum : uint32_t { Statics = 1, Registry, ItemArray, Item };

// Seven walks of a Registry whose App.Item[] gains 5 App.Items a round (none ever dies). At the
// walks of ROOTS' 'k' the Registry is a stack root's object; at its 's' walks only a handle's
// App.Statics holds it: the items' shape starts at [stack] at some walks and at [handle] at
// others. Returns the report.
LeakReport leak_with_roots(const std::string& roots) {
  test::TempFile file("leaks_root_switch");
  {
    auto created = Writer::create(file.path());
    REQUIRE(created.is_ok());
    Writer& w = **created;
    test::RoundHeap h({"App.Statics", "App.Registry", "App.Item[]", "App.Item"});
    const size_t statics = h.add(Statics), registry = h.add(Registry);
    h.root(statics);
    size_t array = h.add(ItemArray);
    h.ref(registry, array);
    std::vector<size_t> items;
    for (const char root : roots) {
      for (int i = 0; i < 5; ++i) items.push_back(h.add(Item));
      h.kill(array);  // the list grows into a new array, as List<T> does
      array = h.add(ItemArray, 16 + 8 * items.size());
      for (const size_t item : items) h.ref(array, item);
      h.clear_refs(registry);
      h.ref(registry, array);
      h.clear_refs(statics);
      h.unroot(registry);
      if (root == 'k') h.root(registry, RootKind::Stack);
      else h.ref(statics, registry);
      REQUIRE(h.write_gc(w).is_ok());
    }
    REQUIRE(w.close().is_ok());
  }
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  const Recording* recs[] = {rec->get()};
  auto report = find_leak_suspects(recs);
  REQUIRE(report.is_ok());
  return std::move(report).value();
}

}  // namespace

TEST_CASE("leak suspects: a leak reached from another root at some walks is counted at every walk", "[leaks]") {
  // Both orders: stack then handle, handle then stack; the last walk at either root.
  const std::string roots = GENERATE(std::string("kkssksk"), std::string("sskkssk"), std::string("kskkkss"));
  INFO("roots by walk: " << roots);
  const LeakReport report = leak_with_roots(roots);
  REQUIRE(report.walks.size() == roots.size());
  for (size_t w = 1; w < report.walks.size(); ++w) REQUIRE(report.walks[w].identity_from_previous);
  std::vector<std::string> types;
  for (const auto& s : report.suspects) types.push_back(s.type);
  INFO("suspects: " << ::Catch::Detail::stringify(types));
  REQUIRE(report.suspects.size() == 1);
  const LeakSuspect& s = report.suspects[0];
  CHECK(s.type == "App.Item");
  REQUIRE(s.shapes.size() == 1);
  CHECK(s.shapes[0].root_kind == (roots.back() == 'k' ? RootKind::Stack : RootKind::Handle));
  const auto item =
      std::find_if(report.types.begin(), report.types.end(), [](const TypeSeries& t) { return t.type == "App.Item"; });
  REQUIRE(item != report.types.end());
  REQUIRE(s.series.size() == roots.size());
  for (size_t w = 0; w < s.series.size(); ++w) {
    INFO("walk " << w << " (root " << roots[w] << ")");
    CHECK(item->counts[w] == 5 * (w + 1));
    CHECK(s.series[w].count == item->counts[w]);
    CHECK(s.series[w].bytes == item->bytes[w]);
    CHECK(s.series[w].retained_bytes >= s.series[w].bytes);
  }
  CHECK(s.count_growth == static_cast<int64_t>(s.accumulated_count));
  CHECK(s.accumulated_count == 5 * (roots.size() - 1));
  CHECK(s.growth_intervals == roots.size() - 1);
  REQUIRE(s.accumulation.found);
  CHECK(s.accumulation.type == "App.Registry");
}

// A bounded list of 10 App.Items (each round its 3 oldest go, 3 new ones come) held through a
// handle's object at six walks and by a stack root at the last: the type stays at 10. The
// last walk's members are all recent, so counted back by identity alone they would rise
// (0 0 0 1 4 7 10) as a leak's do; the type did not grow, so they are not counted back.
TEST_CASE("leak suspects: a bounded list that changes root is not counted back into a leak", "[leaks]") {
  test::TempFile file("leaks_root_switch_bounded");
  {
    auto created = Writer::create(file.path());
    REQUIRE(created.is_ok());
    Writer& w = **created;
    test::RoundHeap h({"App.Statics", "App.Registry", "App.Item[]", "App.Item"});
    const size_t statics = h.add(Statics), registry = h.add(Registry), array = h.add(ItemArray, 96);
    h.root(statics);
    h.ref(registry, array);
    std::vector<size_t> items;
    for (int i = 0; i < 10; ++i) items.push_back(h.add(Item));
    for (int round = 0; round < 7; ++round) {
      if (round > 0)
        for (int i = 0; i < 3; ++i) {
          h.kill(items.front());
          items.erase(items.begin());
          items.push_back(h.add(Item));
        }
      h.clear_refs(array);
      for (const size_t item : items) h.ref(array, item);
      h.clear_refs(statics);
      if (round == 6) h.root(registry, RootKind::Stack);
      else h.ref(statics, registry);
      REQUIRE(h.write_gc(w).is_ok());
    }
    REQUIRE(w.close().is_ok());
  }
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  const Recording* recs[] = {rec->get()};
  auto report = find_leak_suspects(recs);
  REQUIRE(report.is_ok());
  const auto item = std::find_if(report->types.begin(), report->types.end(),
                                 [](const TypeSeries& t) { return t.type == "App.Item"; });
  REQUIRE(item != report->types.end());
  CHECK(item->counts == std::vector<uint64_t>(7, 10));
  for (const auto& s : report->suspects) CHECK(s.type != "App.Item");
}

}  // namespace gcsnap

namespace gcsnap {

// A leak of a common type: the Registry's App.Items (5 more a round, none dies) beside a Cache
// whose App.Items are all replaced every round, 30 of them at the first three walks and 10
// after, so the type shrinks between walks 2 and 3. At one walk (ROOTS' 'k') the Registry is a
// stack root's object, at the others a handle's App.Statics holds it. The leaked items' series
// is their own count at every walk: neither 0 where their root changed, nor raised by the
// Cache's items.
TEST_CASE("leak suspects: a leak of a churning type that changes root is counted at every walk", "[leaks]") {
  const std::string roots = GENERATE(std::string("skssss"), std::string("sssssk"), std::string("ksssss"));
  INFO("roots by walk: " << roots);
  enum : uint32_t { Cache = 5 };
  test::TempFile file("leaks_root_switch_churn");
  {
    auto created = Writer::create(file.path());
    REQUIRE(created.is_ok());
    Writer& w = **created;
    test::RoundHeap h({"App.Statics", "App.Registry", "App.Item[]", "App.Item", "App.Cache"});
    const size_t statics = h.add(Statics), registry = h.add(Registry), cache = h.add(Cache);
    h.root(statics);
    size_t array = h.add(ItemArray), cache_array = h.add(ItemArray, 256);
    h.ref(cache, cache_array);
    std::vector<size_t> items, cached;
    for (size_t round = 0; round < roots.size(); ++round) {
      for (int i = 0; i < 5; ++i) items.push_back(h.add(Item));
      h.kill(array);
      array = h.add(ItemArray, 16 + 8 * items.size());
      for (const size_t item : items) h.ref(array, item);
      h.clear_refs(registry);
      h.ref(registry, array);
      for (const size_t item : cached) h.kill(item);
      cached.clear();
      for (int i = 0; i < (round < 3 ? 30 : 10); ++i) cached.push_back(h.add(Item, 48));
      h.clear_refs(cache_array);
      for (const size_t item : cached) h.ref(cache_array, item);
      h.clear_refs(statics);
      h.ref(statics, cache);
      h.unroot(registry);
      if (roots[round] == 'k') h.root(registry, RootKind::Stack);
      else h.ref(statics, registry);
      REQUIRE(h.write_gc(w).is_ok());
    }
    REQUIRE(w.close().is_ok());
  }
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  const Recording* recs[] = {rec->get()};
  auto report = find_leak_suspects(recs);
  REQUIRE(report.is_ok());
  const auto item = std::find_if(report->types.begin(), report->types.end(),
                                 [](const TypeSeries& t) { return t.type == "App.Item"; });
  REQUIRE(item != report->types.end());
  CHECK(item->counts[3] < item->counts[2]);  // the type shrinks
  const auto leak = std::find_if(report->suspects.begin(), report->suspects.end(),
                                 [](const LeakSuspect& s) { return s.type == "App.Item"; });
  REQUIRE(leak != report->suspects.end());
  REQUIRE(leak->series.size() == roots.size());
  for (size_t w = 0; w < roots.size(); ++w) {
    INFO("walk " << w << " (root " << roots[w] << ")");
    CHECK(leak->series[w].count == 5 * (w + 1));
    CHECK(leak->series[w].bytes == 32 * 5 * (w + 1));
  }
  REQUIRE(leak->accumulation.found);
  CHECK(leak->accumulation.type == "App.Registry");
}

}  // namespace gcsnap

namespace gcsnap {
namespace {

LeakReport report_of(const std::string& path) {
  auto rec = Recording::open(path);
  REQUIRE(rec.is_ok());
  const Recording* recs[] = {rec->get()};
  auto report = find_leak_suspects(recs);
  REQUIRE(report.is_ok());
  return std::move(report).value();
}

const TypeSeries& item_series(const LeakReport& report) {
  const auto item = std::find_if(report.types.begin(), report.types.end(),
                                 [](const TypeSeries& t) { return t.type == "App.Item"; });
  REQUIRE(item != report.types.end());
  return *item;
}

}  // namespace

// One leak, reached from two roots at the last walk itself: a Registry's list gains 10
// App.Items a round (none dies), and a stack frame holds an App.Item[] with every second one
// (a copy it enumerates), so half the items' shortest path starts at [stack] and skips the
// Registry, half at [handle] through it. The two shapes are one suspect with the full count.
TEST_CASE("leak suspects: a leak reached from two roots at the last walk is one suspect", "[leaks]") {
  test::TempFile file("leaks_root_switch_two_roots");
  {
    auto created = Writer::create(file.path());
    REQUIRE(created.is_ok());
    Writer& w = **created;
    test::RoundHeap h({"App.Statics", "App.Registry", "App.Item[]", "App.Item"});
    const size_t statics = h.add(Statics), registry = h.add(Registry);
    h.root(statics);
    h.ref(statics, registry);
    size_t list = h.add(ItemArray), batch = h.add(ItemArray);
    std::vector<size_t> items;
    for (int round = 0; round < 7; ++round) {
      for (int i = 0; i < 10; ++i) items.push_back(h.add(Item));
      h.kill(list);
      h.kill(batch);
      h.unroot(batch);
      list = h.add(ItemArray, 16 + 8 * items.size());
      batch = h.add(ItemArray, 16 + 4 * items.size());
      for (size_t i = 0; i < items.size(); ++i) {
        h.ref(list, items[i]);
        if (i % 2) h.ref(batch, items[i]);
      }
      h.clear_refs(registry);
      h.ref(registry, list);
      h.root(batch, RootKind::Stack);
      REQUIRE(h.write_gc(w).is_ok());
    }
    REQUIRE(w.close().is_ok());
  }
  const LeakReport report = report_of(file.path());
  const TypeSeries& item = item_series(report);
  REQUIRE(report.suspects.size() == 1);
  const LeakSuspect& s = report.suspects[0];
  CHECK(s.type == "App.Item");
  REQUIRE(s.shapes.size() == 2);
  CHECK(s.shapes[0].root_kind != s.shapes[1].root_kind);
  REQUIRE(s.series.size() == 7);
  for (size_t w = 0; w < s.series.size(); ++w) {
    INFO("walk " << w);
    CHECK(item.counts[w] == 10 * (w + 1));
    CHECK(s.series[w].count == item.counts[w]);
    CHECK(s.series[w].bytes == item.bytes[w]);
  }
  CHECK(s.accumulated_count == 60);
  REQUIRE(s.accumulation.found);
  CHECK(s.accumulation.type == "App.Registry");
}

// A list that keeps 10 + w App.Items at walk w (each round its 3 oldest go, 4 new come), held
// through a handle's object at six walks and by a stack root at the last. No member of the
// last walk was alive at the first three walks; the list's holder was, and the objects it
// held then by the same shape from the holder on are counted: the series is the type's.
TEST_CASE("leak suspects: a list whose root changes is counted through its holder", "[leaks]") {
  test::TempFile file("leaks_root_switch_holder");
  {
    auto created = Writer::create(file.path());
    REQUIRE(created.is_ok());
    Writer& w = **created;
    test::RoundHeap h({"App.Statics", "App.Registry", "App.Item[]", "App.Item"});
    const size_t statics = h.add(Statics), registry = h.add(Registry), array = h.add(ItemArray, 256);
    h.root(statics);
    h.ref(registry, array);
    std::vector<size_t> items;
    for (int i = 0; i < 10; ++i) items.push_back(h.add(Item));
    for (int round = 0; round < 7; ++round) {
      if (round > 0) {
        for (int i = 0; i < 3; ++i) {
          h.kill(items.front());
          items.erase(items.begin());
        }
        for (int i = 0; i < 4; ++i) items.push_back(h.add(Item));
      }
      h.clear_refs(array);
      for (const size_t item : items) h.ref(array, item);
      h.clear_refs(statics);
      if (round == 6) h.root(registry, RootKind::Stack);
      else h.ref(statics, registry);
      REQUIRE(h.write_gc(w).is_ok());
    }
    REQUIRE(w.close().is_ok());
  }
  const LeakReport report = report_of(file.path());
  const TypeSeries& item = item_series(report);
  REQUIRE(report.suspects.size() == 1);
  const LeakSuspect& s = report.suspects[0];
  CHECK(s.type == "App.Item");
  REQUIRE(s.series.size() == 7);
  for (size_t w = 0; w < s.series.size(); ++w) {
    INFO("walk " << w);
    CHECK(item.counts[w] == 10 + w);
    CHECK(s.series[w].count == item.counts[w]);
    CHECK(s.series[w].bytes == item.bytes[w]);
  }
  REQUIRE(s.accumulation.found);
  CHECK(s.accumulation.type == "App.Registry");
}

}  // namespace gcsnap
