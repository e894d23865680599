// Type diffs, root diffs, root summaries and transition edge cases on small hand-made data.
#include <algorithm>
#include <string_view>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <random>

#include "gcsnap/heap_diff.hpp"
#include "gcsnap/object_diff.hpp"
#include "gcsnap/object_identity.hpp"
#include "gcsnap/root_summary.hpp"

namespace gcsnap {
namespace {

RootTable make_roots(std::initializer_list<std::tuple<uint64_t, RootKind, uint8_t, uint64_t>> rows) {
  RootTable t;
  for (const auto& [object, kind, flags, id] : rows) {
    t.object_ids.push_back(object);
    t.kinds.push_back(kind);
    t.flags.push_back(flags);
    t.root_ids.push_back(id);
  }
  return t;
}

NameTable names_for(std::initializer_list<std::pair<uint32_t, const char*>> types) {
  std::vector<TypeRecord> records;
  for (const auto& [id, name] : types) records.push_back(TypeRecord{id, 0, name, ""});
  auto names = NameTable::from_records(std::move(records));
  REQUIRE(names);
  return std::move(*names);
}

ObjectTable objects_of(std::initializer_list<std::tuple<uint64_t, uint32_t, uint64_t>> rows) {
  ObjectTable t;
  for (const auto& [address, type, size] : rows) {
    t.addresses.push_back(address);
    t.type_ids.push_back(type);
    t.sizes.push_back(size);
    t.generations.push_back(Generation::Gen0);
  }
  t.reference_offsets.assign(t.addresses.size() + 1, 0);
  return t;
}

}  // namespace

TEST_CASE("type diff merges by name and sorts by growth", "[diff][types]") {
  // Type ids differ between the two sides (two recordings): names decide.
  const auto names_a = names_for({{1, "A"}, {2, "B"}, {3, "C"}, {4, "A"}});
  const auto names_b = names_for({{7, "C"}, {8, "B"}, {9, "D"}});
  const auto a = objects_of({{0x10, 1, 10}, {0x20, 4, 10}, {0x30, 2, 100}, {0x40, 3, 5}});
  const auto b = objects_of({{0x10, 8, 100}, {0x20, 8, 100}, {0x30, 9, 50}, {0x40, 7, 5}});
  const auto ta = count_by_type(a, names_a).value();
  REQUIRE(ta.size() == 3);
  CHECK(ta[0].name == "A");
  CHECK(ta[0].count == 2);  // ids 1 and 4 share the name
  CHECK(ta[0].bytes == 20);
  const auto deltas = diff_by_type(ta, count_by_type(b, names_b).value()).value();
  REQUIRE(deltas.size() == 3);  // C is unchanged and left out
  CHECK(deltas[0].name == "B");
  CHECK(deltas[0].delta_bytes() == 100);
  CHECK(deltas[0].delta_count() == 1);
  CHECK(deltas[1].name == "D");
  CHECK(deltas[1].delta_bytes() == 50);
  CHECK(deltas[2].name == "A");
  CHECK(deltas[2].delta_bytes() == -20);
  CHECK(deltas[2].delta_count() == -2);
  // Turned around, the shrinkages rank by their size, not after every growth.
  const auto reversed = diff_by_type(count_by_type(b, names_b).value(), ta).value();
  REQUIRE(reversed.size() == 3);
  CHECK(reversed[0].name == "B");
  CHECK(reversed[0].delta_bytes() == -100);
  CHECK(reversed[1].name == "D");
  CHECK(reversed[2].name == "A");
  CHECK(reversed[2].delta_bytes() == 20);
  CHECK(diff_by_type(ta, count_by_type(b, names_b).value(), true)->size() == 4);
}

TEST_CASE("type diff agrees with a map-based oracle on random histograms", "[diff][types]") {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<TypeTotal> a, b;
    std::map<std::string, std::pair<int64_t, int64_t>> oracle;
    for (int t = 0; t < 30; ++t) {
      const std::string name = "T" + std::to_string(t);
      if (rng() % 3) {
        const uint64_t c = rng() % 5, bytes = rng() % 500;
        a.push_back({name, c, bytes});
        oracle[name].first -= static_cast<int64_t>(c);
        oracle[name].second -= static_cast<int64_t>(bytes);
      }
      if (rng() % 3) {
        const uint64_t c = rng() % 5, bytes = rng() % 500;
        b.push_back({name, c, bytes});
        oracle[name].first += static_cast<int64_t>(c);
        oracle[name].second += static_cast<int64_t>(bytes);
      }
    }
    std::sort(a.begin(), a.end(), [](auto& x, auto& y) { return x.name < y.name; });
    std::sort(b.begin(), b.end(), [](auto& x, auto& y) { return x.name < y.name; });
    const auto d = diff_by_type(a, b, true).value();
    REQUIRE(d.size() == oracle.size());
    for (size_t i = 0; i < d.size(); ++i) {
      CHECK(d[i].delta_count() == oracle[d[i].name].first);
      CHECK(d[i].delta_bytes() == oracle[d[i].name].second);
      if (i) CHECK(std::abs(d[i - 1].delta_bytes()) >= std::abs(d[i].delta_bytes()));
    }
  }
}

TEST_CASE("root diff matches by kind, root id and mapped object", "[diff][roots]") {
  const auto a = make_roots({{0x100, RootKind::Handle, 0, 1},
                             {0x200, RootKind::Stack, 0, 0xf1},
                             {0x200, RootKind::Stack, 0, 0xf1},  // duplicates match one to one
                             {0x300, RootKind::Finalizer, 0, 0},
                             {0x400, RootKind::Handle, root_flags::kWeakRef, 2}});
  const auto b = make_roots({{0x1100, RootKind::Handle, 0, 1},
                             {0x1200, RootKind::Stack, 0, 0xf1},
                             {0x1300, RootKind::Finalizer, 0, 0},
                             {0x1300, RootKind::Handle, 0, 9}});
  const std::vector<uint64_t> mapped = {0x1100, 0x1200, 0x1200, 0x1300, 0};  // the weak target died
  const auto diff = diff_roots(a, mapped, b).value();
  CHECK(diff.unchanged == 3);
  REQUIRE(diff.removed.size() == 2);
  CHECK(diff.removed[0].kind == RootKind::Stack);
  CHECK(diff.removed[0].object == 0x200);  // reported with A's own address
  CHECK(diff.removed[1].kind == RootKind::Handle);
  CHECK(diff.removed[1].flags == root_flags::kWeakRef);
  REQUIRE(diff.added.size() == 1);
  CHECK(diff.added[0].root_id == 9);
  const auto per_kind = summarize_root_diff(a, b, diff).value();
  REQUIRE(per_kind.size() == 4);
  CHECK(per_kind[0].kind == RootKind::Stack);
  CHECK(per_kind[0].removed == 1);
  CHECK(per_kind[2].kind == RootKind::Handle);
  CHECK(per_kind[2].added == 1);
  CHECK(per_kind[2].removed == 1);
  // Without mapping (two recordings), object ids are compared as recorded.
  const auto unmapped = diff_roots(a, {}, a).value();
  CHECK(unmapped.unchanged == a.size());
  CHECK(unmapped.added.empty());
}

TEST_CASE("root summary groups by kind and flags", "[roots]") {
  const auto roots = make_roots({{0x10, RootKind::Other, 0, 0},
                                 {0x20, RootKind::Stack, root_flags::kPinning | root_flags::kInterior, 1},
                                 {0x20, RootKind::Stack, 0, 1},
                                 {0x30, RootKind::Stack, 0, 2},
                                 {0x30, RootKind::Stack, 0, 3},
                                 {0, RootKind::Handle, root_flags::kWeakRef, 4}});
  const auto groups = summarize_roots(roots).value();
  REQUIRE(groups.size() == 4);
  CHECK(groups[0].kind == RootKind::Stack);
  CHECK(groups[0].flags == 0);
  CHECK(groups[0].count == 3);
  CHECK(groups[0].distinct_objects == 2);
  CHECK(groups[1].flags == (root_flags::kPinning | root_flags::kInterior));
  CHECK(groups[2].kind == RootKind::Handle);
  CHECK(groups[2].null_objects == 1);
  CHECK(groups[3].kind == RootKind::Other);
  CHECK(root_flags_text(root_flags::kAll) == "pinning,weak,interior,refcounted");
  CHECK(root_flags_text(0x21) == "pinning,0x20");
  CHECK(filter_roots(roots, 1u << static_cast<unsigned>(RootKind::Stack), root_flags::kPinning)->size() == 1);
  CHECK(filter_roots(roots, 0, 0)->size() == roots.size());
}

TEST_CASE("transitions reject overlapping ranges and classify by generation", "[identity]") {
  GcInfo gen0;
  gen0.gc_number = 2;
  gen0.generations_collected = 0x1;
  RangeTable overlap;
  overlap.moved_old_starts = {0x100, 0x180};
  overlap.moved_new_starts = {0x1000, 0x2000};
  overlap.moved_lengths = {0x100, 0x10};
  auto bad = GcTransition::build(gen0, overlap, {});
  REQUIRE(!bad.is_ok());
  CHECK(bad.error().code == ErrorCode::InconsistentData);

  RangeTable r;
  r.moved_old_starts = {0x100};
  r.moved_new_starts = {0x5100};
  r.moved_lengths = {0x40};
  const std::vector<GenerationRange> bounds = {{Generation::Gen0, 0x100, 0x100, 0},
                                               {Generation::Gen1, 0x400, 0x100, 0},
                                               {Generation::LargeObjectHeap, 0x9000, 0x1000, 0}};
  auto t = GcTransition::build(gen0, r, bounds);
  REQUIRE(t.is_ok());
  CHECK(t->follow(0x110).fate == Fate::Moved);
  CHECK(t->follow(0x110).address == 0x5110);
  CHECK(t->follow(0x140).fate == Fate::Died);       // gen0, end of the range is exclusive
  CHECK(t->follow(0x410).fate == Fate::NotCondemned);  // gen1 in a gen0 GC
  CHECK(t->follow(0x9010).fate == Fate::NotCondemned); // LOH only goes with gen2
  CHECK(t->follow(0x7000, Generation::NonGcHeap).fate == Fate::NonGcHeap);
  CHECK(t->follow(0x7000).fate == Fate::Unknown);
  CHECK(t->follow(0x7000, Generation::Gen2).fate == Fate::NotCondemned);
  GcInfo full = gen0;
  full.generations_collected = 0x7;
  auto f = GcTransition::build(full, RangeTable{}, bounds);
  REQUIRE(f.is_ok());
  CHECK(f->follow(0x9010).fate == Fate::Died);
  CHECK(f->follow(0x7000).fate == Fate::Died);  // a gen2 GC condemns the whole GC heap
}

TEST_CASE("object diff reports survivors missing from B's walk", "[diff][objects]") {
  const auto a = objects_of({{0x100, 1, 16}, {0x200, 1, 16}, {0x300, 2, 32}});
  const auto b = objects_of({{0x1100, 1, 16}, {0x1300, 2, 32}, {0x1400, 2, 64}});
  const std::vector<uint64_t> at_b = {0x1100, 0x1200, 0x1300};
  const std::vector<uint64_t> died = {0, 0, 0};
  auto diff = diff_objects(a, b, at_b, died);
  REQUIRE(diff.is_ok());
  CHECK(diff->surviving_count == 2);
  CHECK(diff->missing_in_b == std::vector<size_t>{1});
  CHECK(diff->new_objects == std::vector<size_t>{2});
  CHECK(diff->new_bytes == 64);
  const auto names = names_for({{1, "One"}, {2, "Two"}});
  const auto groups = group_by_type(b, names, std::vector<size_t>{0, 1, 2}).value();
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].name == "Two");
  CHECK(groups[0].bytes == 96);
  CHECK(groups[0].members == std::vector<size_t>{1, 2});
  CHECK(!diff_objects(a, b, std::vector<uint64_t>{1}, died).is_ok());
}

TEST_CASE("object diff matches one survivor per B object, lists the rest of B as new in order", "[diff][objects]") {
  // A's objects 0 and 1 both followed to 0x1100 (damaged ranges): the first matches, the second
  // is missing; B's objects before, between and after the survivors are new, in B's order.
  const std::vector<uint64_t> a_sizes = {16, 16, 32, 8};
  const std::vector<uint64_t> b_addresses = {0x1000, 0x1100, 0x1180, 0x1200, 0x1300, 0x1400};
  const std::vector<uint64_t> b_sizes = {1, 2, 4, 8, 16, 32};
  for (const auto& at_b : {std::vector<uint64_t>{0x1100, 0x1100, 0x1200, 0x1250},
                           std::vector<uint64_t>{0x1200, 0x1100, 0x1100, 0x1250}}) {
    const std::vector<uint64_t> died = {0, 0, 0, 0};
    auto diff = diff_objects(a_sizes, b_addresses, b_sizes, at_b, died);
    REQUIRE(diff.is_ok());
    CHECK(diff->surviving_count == 2);
    CHECK(diff->surviving_bytes_b == 2 + 8);
    CHECK(diff->missing_in_b.size() == 2);
    CHECK(diff->new_objects == std::vector<size_t>{0, 2, 4, 5});
    CHECK(diff->new_bytes == 1 + 4 + 16 + 32);
    // Each B object is matched at most once.
    std::vector<size_t> matched;
    for (size_t k : diff->b_index_of_a)
      if (k != kNoObject) matched.push_back(k);
    std::sort(matched.begin(), matched.end());
    CHECK(matched == std::vector<size_t>{1, 3});
  }
}

TEST_CASE("object diff on columns matches survivors whose order changed, groups select before listing", "[diff][objects]") {
  // A's objects 0 and 2 swapped places at B (a compaction that reordered them), 1 died.
  const std::vector<uint64_t> a_sizes = {16, 16, 32};
  const std::vector<uint64_t> b_addresses = {0x1000, 0x1100, 0x1200};
  const std::vector<uint64_t> b_sizes = {32, 48, 16};
  const std::vector<uint64_t> at_b = {0x1200, 0x300, 0x1000};
  const std::vector<uint64_t> died = {0, 5, 0};
  auto diff = diff_objects(a_sizes, b_addresses, b_sizes, at_b, died);
  REQUIRE(diff.is_ok());
  CHECK(diff->surviving_count == 2);
  CHECK(diff->b_index_of_a == std::vector<size_t>{2, kNoObject, 0});
  CHECK(diff->dead_objects == std::vector<size_t>{1});
  CHECK(diff->new_objects == std::vector<size_t>{1});
  CHECK(diff->missing_in_b.empty());

  // Five types, two ids sharing one name; the selection keeps names with "a", then the top 2.
  const std::vector<uint32_t> type_ids = {1, 2, 3, 4, 5, 1, 2, 6};
  const std::vector<uint64_t> sizes = {10, 20, 30, 40, 50, 10, 20, 5};
  const auto names = names_for({{1, "Alpha"}, {2, "Beta"}, {3, "Gamma"}, {4, "Delta"}, {5, "Omega"}, {6, "Alpha"}});
  const std::vector<size_t> rows = {0, 1, 2, 3, 4, 5, 6, 7};
  const auto all = group_by_type(type_ids, sizes, names, rows).value();
  REQUIRE(all.size() == 5);
  CHECK(all[0].name == "Omega");
  const auto alpha = std::find_if(all.begin(), all.end(), [](const TypeGroup& g) { return g.name == "Alpha"; });
  REQUIRE(alpha != all.end());
  CHECK(alpha->count == 3);
  CHECK(alpha->bytes == 25);
  CHECK(alpha->members == std::vector<size_t>{0, 5, 7});
  // The filter applies before the top: Omega (the largest) has no 't'.
  GroupSelection selection{2, [](std::string_view name) { return name.find('t') != std::string_view::npos; }};
  const auto kept = group_by_type(type_ids, sizes, names, rows, selection).value();
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].name == "Beta");  // 40 bytes in 2 objects before Delta's 40 in 1
  CHECK(kept[0].members == std::vector<size_t>{1, 6});
  CHECK(kept[1].name == "Delta");
  CHECK(kept[1].members == std::vector<size_t>{3});
  const auto top = group_by_type(type_ids, sizes, names, rows, GroupSelection{1, {}}).value();
  REQUIRE(top.size() == 1);
  CHECK(top[0].name == "Omega");
  CHECK(top[0].members == std::vector<size_t>{4});
}

}  // namespace gcsnap
