// Leak suspects on hand-made recordings: planted leaks are found, look-alikes (a cache that
// fills, churn, startup and one-time allocations, old objects that change hands) are not.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "leaks/leak_scan.hpp"
#include "analysis/shape_trie.hpp"
#include "analysis/shape_union.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/leak_suspects.hpp"
#include "gcsnap/writer.hpp"
#include "leak_rounds.hpp"
#include "temp_path.hpp"

namespace gcsnap {
namespace {

const LeakSuspect* find_suspect(const LeakReport& r, std::string_view type) {
  for (const auto& s : r.suspects)
    if (s.type == type) return &s;
  return nullptr;
}

// Everything a report says, on one line per suspect, for comparing two reports.
std::string describe_report(const LeakReport& r) {
  std::string out = "groups " + std::to_string(r.groups) + "\n";
  for (const auto& w : r.walks)
    out += "walk " + std::to_string(w.gc_number) + " " + std::to_string(w.objects) + " " + std::to_string(w.bytes) +
           " " + std::to_string(w.identity_from_previous) + "\n";
  for (const auto& s : r.suspects) {
    out += s.type + " acc " + std::to_string(s.accumulated_count) + " " + std::to_string(s.accumulated_bytes) + " point " +
           std::to_string(s.accumulation.address) + " " + s.accumulation.type + " " +
           std::to_string(s.accumulation.retained_bytes) + " example " + std::to_string(s.example_address) + " series";
    for (const auto& p : s.series)
      out += " " + std::to_string(p.count) + "/" + std::to_string(p.bytes) + "/" + std::to_string(p.retained_bytes) +
             "/" + std::to_string(p.born_here);
    for (const auto& shape : s.shapes) out += " shape " + std::to_string(shape.count) + " " + std::to_string(shape.types.size());
    for (const auto& h : s.holds) out += " holds " + h.type + " " + std::to_string(h.accumulated_count);
    out += "\n";
  }
  for (const auto& t : r.types) out += t.type + " " + std::to_string(t.counts.back()) + "\n";
  return out;
}

}  // namespace

TEST_CASE("collapse_repeats drops repeated hops of chains", "[leaks]") {
  using V = std::vector<uint32_t>;
  auto collapse_repeats = [](const V& types, size_t max_period = 4) { return gcsnap::collapse_repeats(types, max_period).value(); };
  CHECK(collapse_repeats(V{1, 2, 2, 2, 2}) == V{1, 2});
  CHECK(collapse_repeats(V{1, 2}) == V{1, 2});
  CHECK(collapse_repeats(V{1, 2, 3, 2, 3, 2, 3}) == V{1, 2, 3});
  CHECK(collapse_repeats(V{1, 2, 3, 2, 3, 2, 4}) == V{1, 2, 3, 2, 4});
  CHECK(collapse_repeats(V{5, 1, 2, 3, 4, 1, 2, 3, 4, 6}) == V{5, 1, 2, 3, 4, 6});
  CHECK(collapse_repeats(V{5, 1, 2, 3, 4, 1, 2, 3, 4, 6}, 3) == V{5, 1, 2, 3, 4, 1, 2, 3, 4, 6});
  CHECK(collapse_repeats(V{}).empty());
  CHECK(collapse_repeats(V{3, 3, 3}, 0) == V{3, 3, 3});
}

TEST_CASE("the shape trie collapses as collapse_repeats does", "[leaks]") {
  std::mt19937 rng(7);
  leaks::ShapeTrie trie;
  for (int n = 0; n < 2000; ++n) {
    std::vector<uint32_t> types(rng() % 12);
    for (auto& t : types) t = static_cast<uint32_t>(1 + rng() % 3);
    uint32_t shape = trie.root(3, 0);
    for (uint32_t t : types) shape = trie.extend(shape, t);
    auto labels = trie.labels(shape);
    REQUIRE(labels.front() == (leaks::ShapeTrie::kRootLabel | 3u << 8));
    labels.erase(labels.begin());
    auto collapsed = collapse_repeats(types);
    REQUIRE(collapsed.is_ok());
    REQUIRE(labels == *collapsed);
  }
}

// The trie tests a repeat only where a hash of the labels says one may be (ShapeTrie::tails_):
// with labels from a wide range, distinct labels share a hash, and a repeat of any period must
// still collapse and a look-alike must not.
TEST_CASE("the shape trie collapses as collapse_repeats does with many distinct labels", "[leaks]") {
  std::mt19937 rng(11);
  leaks::ShapeTrie trie;
  for (int n = 0; n < 20000; ++n) {
    uint32_t pool[4];
    for (auto& t : pool) t = static_cast<uint32_t>(1 + rng() % 1000);
    std::vector<uint32_t> types(rng() % 15);
    for (auto& t : types) t = pool[rng() % 4];
    uint32_t shape = trie.root(2, 0);
    for (uint32_t t : types) shape = trie.extend(shape, t);
    auto labels = trie.labels(shape);
    labels.erase(labels.begin());
    auto collapsed = collapse_repeats(types);
    REQUIRE(collapsed.is_ok());
    REQUIRE(labels == *collapsed);
  }
}

TEST_CASE("the shape union counts the distinct shapes with members over every trie added", "[leaks]") {
  std::mt19937 rng(11);
  leaks::ShapeUnion shapes;
  std::set<std::vector<uint32_t>> expected;
  for (int walk = 0; walk < 6; ++walk) {
    // Each walk a trie of its own (ids differ from walk to walk); some shapes with members,
    // some only prefixes, some repeated from earlier walks.
    leaks::ShapeTrie trie;
    std::vector<uint32_t> members;
    for (int n = 0; n < 400; ++n) {
      std::vector<uint32_t> types(rng() % 9);
      for (auto& t : types) t = static_cast<uint32_t>(1 + rng() % 4);
      uint32_t shape = trie.root(static_cast<uint8_t>(1 + rng() % 2), 0);
      for (uint32_t t : types) shape = trie.extend(shape, t);
      if (rng() % 3 != 0) members.push_back(shape);
    }
    std::vector<uint8_t> has_members(trie.size(), 0);
    for (uint32_t m : members) {
      has_members[m] = 1;
      expected.insert(trie.labels(m));
    }
    shapes.add(trie, has_members);
    REQUIRE(shapes.members() == expected.size());
  }
  REQUIRE(expected.size() > 400);
}

TEST_CASE("is_growing_series wants growth in most intervals and at the end", "[leaks]") {
  using V = std::vector<uint64_t>;
  CHECK(is_growing_series(V{0, 5, 10, 15, 20}, 0.6));
  CHECK(is_growing_series(V{0, 5, 5, 15, 20, 30}, 0.6));   // one flat interval
  CHECK_FALSE(is_growing_series(V{0, 10, 20, 20, 20, 20}, 0.6));  // a cache that filled
  CHECK_FALSE(is_growing_series(V{20, 20, 20, 20}, 0.6));   // churn or startup
  CHECK_FALSE(is_growing_series(V{0, 0, 30, 30, 30}, 0.6)); // one-time allocation
  CHECK_FALSE(is_growing_series(V{5, 10, 15, 20, 2}, 0.6)); // freed at the end
  CHECK_FALSE(is_growing_series(V{1, 2, 3, 4, 4, 4}, 0.6)); // stopped: flat over the last third
  CHECK_FALSE(is_growing_series(V{7}, 0.6));
}

TEST_CASE("flat_from finds where a group that grew held flat", "[leaks]") {
  using V = std::vector<uint64_t>;
  CHECK(flat_from(V{0, 10, 20, 20, 20, 20, 20}) == 2);  // a cache that filled in two rounds
  CHECK(flat_from(V{0, 1000, 1000}) == 1);               // three walks: filled in the first interval
  CHECK(flat_from(V{0, 963, 1000}) == 1);                // nearly full at the second walk
  CHECK(flat_from(V{0, 1000, 950, 1000, 960}) == 1);     // compacted by up to a tenth of the rise
  CHECK(flat_from(V{500, 1000, 1000, 1000}) == 1);       // from a base
  CHECK(flat_from(V{0, 1100, 2263}) == 0);               // a leak: a tail of one walk
  CHECK(flat_from(V{0, 5, 10, 15, 20}) == 0);
  CHECK(flat_from(V{1000, 1030, 1037}) == 0);            // still rising beyond a tenth of its rise
  CHECK(flat_from(V{20, 20, 20, 20}) == 0);              // never grew
  CHECK(flat_from(V{0, 1, 1}) == 0);                     // a rise under one per interval is noise
  CHECK(flat_from(V{1000, 10, 10, 10}) == 0);            // shrank into its level, did not grow
  CHECK(flat_from(V{0, 10}) == 0);                       // two walks: no tail to hold
  CHECK(flat_from(V{0, 5, 10, 15, 20, 25, 30, 35, 40, 40}) == 0);  // flat over one of nine intervals
  CHECK(flat_from(V{0, 5, 10, 15, 20, 25, 40, 40, 40, 40}) == 6);  // over the last third
  CHECK(flat_from(V{}) == 0);
}

TEST_CASE("keeps_growing wants the pace of the first half kept in the last", "[leaks]") {
  using V = std::vector<uint64_t>;
  CHECK(keeps_growing(V{0, 1100, 2263}));         // the leak beside which the others are small
  CHECK_FALSE(keeps_growing(V{1000, 1030, 1037}));  // a cache's nodes filling up: +30 then +7
  CHECK_FALSE(keeps_growing(V{0, 10, 12}));         // Number.s_smallNumberCache's strings
  CHECK(keeps_growing(V{0, 6, 12}));                // small but steady: still a suspect
  CHECK(keeps_growing(V{0, 10, 15}));               // half the pace is enough
  CHECK(keeps_growing(V{0, 4, 8, 10, 12}));         // +8 then +4 over two intervals each
  CHECK_FALSE(keeps_growing(V{0, 10, 20, 22, 23})); // +20 then +3
  CHECK_FALSE(keeps_growing(V{0, 10, 20, 20}));     // flat in the last interval
  CHECK(keeps_growing(V{3, 4}));
  CHECK_FALSE(keeps_growing(V{4}));
}

TEST_CASE("leak suspects: planted leaks are found, look-alikes are not", "[leaks]") {
  test::TempFile file("leaks_rounds");
  REQUIRE(test::write_leak_rounds(file.path()).is_ok());
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  const Recording* recs[] = {rec->get()};
  auto report = find_leak_suspects(recs);
  REQUIRE(report.is_ok());
  REQUIRE(report->walks.size() == 7);
  CHECK_FALSE(report->too_few_walks);
  for (size_t w = 1; w < 7; ++w) CHECK(report->walks[w].identity_from_previous);

  std::vector<std::string> types;
  for (const auto& s : report->suspects) types.push_back(s.type);
  INFO("suspects: " << ::Catch::Detail::stringify(types));
  REQUIRE(report->suspects.size() == 2);

  const LeakSuspect* item = find_suspect(*report, "App.Item");
  REQUIRE(item);
  REQUIRE(item->shapes.size() == 1);
  CHECK(item->shapes[0].root_kind == RootKind::Handle);
  CHECK(item->shapes[0].types == std::vector<std::string>{"App.Holder", "App.Item[]", "App.Item"});
  for (size_t w = 0; w < 7; ++w) CHECK(item->series[w].count == 5 * w);
  CHECK(item->accumulated_count == 30);
  CHECK(item->accumulated_bytes == 30 * 32);
  CHECK(item->by_identity);
  CHECK(item->growth_intervals == 6);
  CHECK(item->birth_intervals == 6);
  for (size_t w = 1; w < 7; ++w) CHECK(item->series[w].born_here == 5);
  CHECK(item->accumulation.found);
  CHECK(item->accumulation.type == "App.Holder");
  CHECK(item->accumulation.via_array == "App.Item[]");
  CHECK(item->accumulation.members_dominated == 30);
  CHECK(item->example_address != 0);
  CHECK(item->series.back().retained_bytes == 30 * 32);

  // The list's 18 nodes have one shape, from 1 to 18 hops below the head.
  const LeakSuspect* node = find_suspect(*report, "App.Node");
  REQUIRE(node);
  REQUIRE(node->shapes.size() == 1);
  CHECK(node->shapes[0].types == std::vector<std::string>{"App.Head", "App.Node"});
  CHECK(node->shapes[0].count == 18);
  CHECK(node->shapes[0].min_hops == 1);
  CHECK(node->shapes[0].max_hops == 18);
  CHECK(node->accumulation.type == "App.Head");
  // Nested nodes count once: the first node retains the whole list.
  CHECK(node->series.back().retained_bytes == 18 * 32);
  // Ranked by retained growth: 30 items outweigh 18 nodes.
  CHECK(report->suspects[0].type == "App.Item");

  // The type series covers every type (for check --max-count / --max-growth).
  auto entry = std::find_if(report->types.begin(), report->types.end(), [](const TypeSeries& t) { return t.type == "App.Entry"; });
  REQUIRE(entry != report->types.end());
  CHECK(entry->counts == std::vector<uint64_t>{0, 10, 20, 20, 20, 20, 20});

  // The cache that filled and then replaced its entries is listed apart, as bounded.
  REQUIRE(report->bounded.size() == 1);
  const BoundedGroup& cache = report->bounded[0];
  CHECK(cache.group.type == "App.Entry");
  CHECK(cache.kind == BoundedKind::HeldFlat);
  CHECK(cache.flat_from == 2);
  REQUIRE(cache.group.series.size() == 7);
  for (size_t w = 0; w < 7; ++w) CHECK(cache.group.series[w].count == entry->counts[w]);
  CHECK(cache.group.accumulation.found);
}

TEST_CASE("leak suspects: too few walks judge nothing; options bound the answer", "[leaks]") {
  test::TempFile file("leaks_rounds_opts");
  REQUIRE(test::write_leak_rounds(file.path()).is_ok());
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  const Recording* recs[] = {rec->get()};
  LeakOptions options;
  options.min_walks = 8;
  auto report = find_leak_suspects(recs, options);
  REQUIRE(report.is_ok());
  CHECK(report->too_few_walks);
  CHECK(report->suspects.empty());
  options = {};
  options.top = 1;
  report = find_leak_suspects(recs, options);
  REQUIRE(report.is_ok());
  REQUIRE(report->suspects.size() == 1);
  CHECK(report->suspects[0].type == "App.Item");
  CHECK(find_leak_suspects(std::span<const Recording* const>{}).error().code == ErrorCode::InvalidArgument);
}

TEST_CASE("leak suspects over several recordings: time order, app identity", "[leaks]") {
  test::TempFile a("leaks_app_a"), b("leaks_app_b"), other("leaks_other_app");
  for (auto* f : {&a, &b}) {
    auto w = Writer::create(f->path());
    REQUIRE(w.is_ok());
    test::RoundHeap h(test::leak_round_type_names());
    h.root(h.add(1));
    // b's GCs are later than a's.
    REQUIRE(h.write_gc(**w, f == &a ? 1'000'000'000'000 : 2'000'000'000'000).is_ok());
    REQUIRE((*w)->close().is_ok());
  }
  {
    auto w = Writer::create(other.path());
    REQUIRE(w.is_ok());
    test::RoundHeap h({"Other.Thing"}, "/srv/other/Other.dll");
    h.root(h.add(1));
    REQUIRE(h.write_gc(**w).is_ok());
    REQUIRE((*w)->close().is_ok());
  }
  auto ra = Recording::open(a.path()), rb = Recording::open(b.path()), ro = Recording::open(other.path());
  REQUIRE((ra.is_ok() && rb.is_ok() && ro.is_ok()));
  auto app_a = identify_app(**ra), app_b = identify_app(**rb), app_o = identify_app(**ro);
  REQUIRE((app_a.is_ok() && app_b.is_ok() && app_o.is_ok()));
  CHECK(app_a->modules == std::vector<std::string>{"App.dll"});
  CHECK(app_a->namespaces == std::vector<std::string>{"App"});
  CHECK(app_o->modules == std::vector<std::string>{"Other.dll"});
  CHECK(is_same_app(*app_a, *app_b));
  CHECK_FALSE(is_same_app(*app_a, *app_o));
  // Recorders may leave modules empty (the shim does): namespaces then tell apps apart.
  CHECK(is_same_app(AppIdentity{{}, {"Shop.Web"}}, AppIdentity{{"Shop.dll"}, {"Shop.Data", "Shop.Web"}}));
  CHECK_FALSE(is_same_app(AppIdentity{{}, {"Shop.Web"}}, AppIdentity{{}, {"Blog"}}));
  CHECK(is_same_app(AppIdentity{}, AppIdentity{}));
  CHECK_FALSE(is_same_app(AppIdentity{}, AppIdentity{{}, {"Blog"}}));

  const Recording* recs[] = {rb->get(), ra->get()};  // given late first
  LeakOptions options;
  options.min_walks = 2;
  auto report = find_leak_suspects(recs, options);
  REQUIRE(report.is_ok());
  REQUIRE(report->walks.size() == 2);
  CHECK(report->recording_order == std::vector<size_t>{1, 0});
  CHECK(report->walks[0].time_ns < report->walks[1].time_ns);
  CHECK_FALSE(report->walks[1].identity_from_previous);  // no identity across recordings
}

}  // namespace gcsnap

namespace gcsnap {

// A doubly linked list entered from its head (App.Owner, which every node references back)
// and from its tail (App.Waiter, under another root): its nodes have two shapes and no
// object dominates them. One suspect, counted whole, held by its owner.
TEST_CASE("leak suspects: a list held at both ends is one suspect held by its owner", "[leaks]") {
  enum : uint32_t { Owner = 1, Waiter, Node, Keep };
  test::TempFile file("leaks_two_ends");
  {
    auto created = Writer::create(file.path());
    REQUIRE(created.is_ok());
    Writer& w = **created;
    test::RoundHeap h({"App.Owner", "App.Waiter", "App.Node", "App.Keep"});
    const size_t keep = h.add(Keep), owner = h.add(Owner), waiter = h.add(Waiter);
    h.root(keep);
    h.root(waiter);
    h.ref(keep, owner);
    const size_t tail = h.add(Node);
    h.ref(tail, owner);
    h.ref(owner, tail);
    h.ref(waiter, tail);
    size_t head = tail;
    REQUIRE(h.write_gc(w).is_ok());
    for (int round = 1; round <= 5; ++round) {
      for (int i = 0; i < 4; ++i) {
        const size_t node = h.add(Node);
        h.ref(node, owner);   // the back reference to the owner
        h.ref(node, head);    // Next
        h.ref(head, node);    // Prev
        h.clear_refs(owner);
        h.ref(owner, node);   // the owner holds the newest node
        head = node;
      }
      REQUIRE(h.write_gc(w).is_ok());
    }
    REQUIRE(w.close().is_ok());
  }
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  const Recording* recs[] = {rec->get()};
  auto report = find_leak_suspects(recs);
  REQUIRE(report.is_ok());
  std::vector<std::string> types;
  for (const auto& s : report->suspects) types.push_back(s.type);
  INFO("suspects: " << ::Catch::Detail::stringify(types));
  REQUIRE(report->suspects.size() == 1);
  const LeakSuspect& s = report->suspects[0];
  CHECK(s.type == "App.Node");
  CHECK(s.holds.empty());
  CHECK(report->groups == 4);  // Keep, Owner, Waiter, and the two shapes of Node judged as one
  REQUIRE(s.shapes.size() == 2);
  // The list's 21 nodes split where the breadth-first search from the two roots meets: the
  // waiter reaches the oldest 11 at hops 1-11, the owner (hop 1) the newest 10 at hops 2-11.
  // Each shape's own hops, though the first is the joined group's root (its facts are the group's).
  CHECK(s.shapes[0].count == 11);
  CHECK(s.shapes[0].types == std::vector<std::string>{"App.Waiter", "App.Node"});
  CHECK(s.shapes[0].min_hops == 1);
  CHECK(s.shapes[0].max_hops == 11);
  CHECK(s.shapes[1].count == 10);
  CHECK(s.shapes[1].min_hops == 2);
  CHECK(s.shapes[1].max_hops == 11);
  // Counted whole, as the type's own series counts it.
  const auto node_series = std::find_if(report->types.begin(), report->types.end(),
                                        [](const TypeSeries& t) { return t.type == "App.Node"; });
  REQUIRE(node_series != report->types.end());
  for (size_t w = 0; w < s.series.size(); ++w) CHECK(s.series[w].count == node_series->counts[w]);
  CHECK(s.series.back().count == 21);
  CHECK(s.accumulated_count == 20);
  REQUIRE(s.accumulation.found);
  CHECK(s.accumulation.is_owner);
  CHECK(s.accumulation.type == "App.Owner");
  CHECK(s.accumulation.entries == 2);
}

TEST_CASE("leak suspects from the walks' analysis indexes are those from the decoded walks", "[leaks]") {
  test::TempFile file("leaks_indexed");
  REQUIRE(test::write_leak_rounds(file.path()).is_ok());
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  const Recording* recs[] = {rec->get()};
  const std::vector<std::string> paths = {file.path()};
  auto decoded = find_leak_suspects(recs);
  REQUIRE(decoded.is_ok());
  REQUIRE(decoded->suspects.size() >= 2);
  // No index yet: the paths change nothing.
  auto without = find_leak_suspects(recs, paths);
  REQUIRE(without.is_ok());
  CHECK(describe_report(*without) == describe_report(*decoded));

  std::vector<std::string> written;
  for (size_t g = 0; g < (*rec)->gcs().size(); ++g) {
    if (!(*rec)->gcs()[g].has_heap_walk()) continue;
    auto index = compute_analysis_index(**rec, g);
    REQUIRE(index.is_ok());
    auto id = identify_gc(file.path(), **rec, g);
    REQUIRE(id.is_ok());
    written.push_back(analysis_index_path(file.path(), (*rec)->gcs()[g].info.gc_number));
    REQUIRE(write_analysis_index(*index, *id, written.back()).is_ok());
  }
  REQUIRE(written.size() == 7);
  auto indexed = find_leak_suspects(recs, paths);
  for (const auto& path : written) std::filesystem::remove(path);
  REQUIRE(indexed.is_ok());
  CHECK(describe_report(*indexed) == describe_report(*decoded));

  const std::vector<std::string> two = {file.path(), file.path()};
  CHECK(find_leak_suspects(recs, two).error().code == ErrorCode::InvalidArgument);
}

TEST_CASE("shapes from an index's shortest-path tree are the BFS's", "[leaks]") {
  test::TempFile file("leaks_tree_shapes");
  REQUIRE(test::write_leak_rounds(file.path()).is_ok());
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  size_t walks = 0;
  for (size_t g = 0; g < (*rec)->gcs().size(); ++g) {
    if (!(*rec)->gcs()[g].has_heap_walk()) continue;
    auto index = compute_analysis_index(**rec, g);
    REQUIRE(index.is_ok());
    auto id = identify_gc(file.path(), **rec, g);
    REQUIRE(id.is_ok());
    const std::string written = analysis_index_path(file.path(), (*rec)->gcs()[g].info.gc_number);
    REQUIRE(write_analysis_index(*index, *id, written).is_ok());
    leaks::TypeInterner types;
    auto walk = leaks::open_walk_graph(**rec, file.path(), g, types, false);
    std::filesystem::remove(written);
    REQUIRE(walk.is_ok());
    leaks::ScannedWalk& s = **walk;
    REQUIRE(s.heap->is_from_index());
    leaks::ShapeTrie from_tree, from_bfs;
    REQUIRE(leaks::assign_shapes_from_tree(s, from_tree));
    const std::vector<uint32_t> tree_shapes = s.shape;
    leaks::assign_shapes(s, from_bfs, false);
    REQUIRE(tree_shapes.size() == s.shape.size());
    size_t reached = 0;
    for (size_t v = 0; v < s.shape.size(); ++v) {
      REQUIRE((tree_shapes[v] == leaks::ShapeTrie::kNone) == (s.shape[v] == leaks::ShapeTrie::kNone));
      if (s.shape[v] == leaks::ShapeTrie::kNone) continue;
      ++reached;
      REQUIRE(from_tree.labels(tree_shapes[v]) == from_bfs.labels(s.shape[v]));
    }
    CHECK(reached > 50);
    ++walks;
  }
  CHECK(walks == 7);
}

}  // namespace gcsnap
