// Field names on retention paths (format-spec.md §6.12-§6.14): a hand-made heap whose
// path goes through a static, a list's array field, an array element and a struct array.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "gcsnap/edge_names.hpp"
#include "gcsnap/retention.hpp"

using namespace gcsnap;

namespace {

// statics Object[] @0x1000 --[slot 24 = App.Cache.Orders]--> Dict @0x1100 --_entries--> Entry[] @0x1200
// --[2].value--> Order @0x1400 --Customer--> Customer @0x1500; a dangling reference first in Dict.
struct Heap {
  ObjectTable objects;
  RootTable roots;
  NameTable names;
  std::vector<FieldRecord> dict_fields{{8, field_flags::kReference, "_buckets"},
                                       {16, field_flags::kReference, "_entries"},
                                       {24, field_flags::kReference, "_comparer"}};
  std::vector<FieldRecord> entry_fields{{0, field_flags::kReference, "key"}, {8, field_flags::kReference, "value"}};
  std::vector<FieldRecord> order_fields{{8, field_flags::kReference, "Customer"}};

  explicit Heap(bool with_slots) {
    objects.addresses = {0x1000, 0x1100, 0x1200, 0x1400, 0x1500};
    objects.sizes = {64, 48, 96, 24, 24};
    objects.type_ids = {1, 2, 3, 4, 5};
    objects.generations.assign(5, Generation::Gen2);
    //                           Object[]:     Dict:                 Entry[]:  Order:  Customer
    objects.reference_offsets = {0, 1, 4, 5, 6, 6};
    objects.reference_targets = {0x1100, 0x9999000, 0x1200, 0x1100, 0x1400, 0x1500};
    if (with_slots) objects.reference_slots = {24, 8, 16, 24, 16 + 2 * 24 + 8, 8};
    roots.object_ids = {0x1000};
    roots.kinds = {RootKind::Handle};
    roots.flags = {root_flags::kPinning};
    roots.root_ids = {0x10};
    names = make_names(true);
  }

  // The table of the five types; WITH_ORDER_LAYOUT false leaves App.Order without a layout.
  NameTable make_names(bool with_order_layout) const {
    std::vector<TypeLayout> layouts{{1, LayoutKind::ReferenceArray, 16, 8, {}},
                                    {2, LayoutKind::Object, 0, 0, dict_fields},
                                    {3, LayoutKind::StructArray, 16, 24, entry_fields}};
    if (with_order_layout) layouts.push_back({4, LayoutKind::Object, 0, 0, order_fields});
    auto table = NameTable::from_records({{1, 0, "System.Object[]", ""}, {2, 0, "App.Dict", ""},
                                          {3, 0, "App.Dict+Entry[]", ""}, {4, 0, "App.Order", ""},
                                          {5, 0, "App.Customer", ""}},
                                         {}, std::move(layouts));
    REQUIRE(table);
    return std::move(*table);
  }
};

std::vector<std::string> texts(const std::vector<HopField>& hops) {
  std::vector<std::string> out;
  for (const auto& h : hops) out.push_back(h.text);
  return out;
}

}  // namespace

TEST_CASE("a retention path names the static, fields, array index and struct element field") {
  Heap heap(true);
  auto graph = HeapGraph::build(heap.objects, heap.roots);
  REQUIRE(graph);
  CHECK(graph->stats().unresolved_references == 1);
  auto slots = EdgeSlots::build(heap.objects, *graph);
  REQUIRE(slots);
  const std::vector<StaticSlot> statics{{0x1000 + 24, "App.Cache.Orders"}};
  auto result = find_retention_paths(*graph, 4, RetentionOptions{});
  REQUIRE(result);
  REQUIRE(result->paths.size() == 1);
  const auto& nodes = result->paths[0].nodes;
  REQUIRE(nodes == std::vector<NodeIndex>{0, 1, 2, 3, 4});
  const EdgeNamer namer(*graph, heap.names, *slots, statics);
  const auto hops = namer.name_path(nodes);
  CHECK(texts(hops) == std::vector<std::string>{"", "App.Cache.Orders", "_entries", "[2].value", "Customer"});
  CHECK(hops[1].is_static);
  CHECK(hops[2].kind == EdgeNameKind::Field);
  CHECK(hops[3].kind == EdgeNameKind::Element);
  CHECK(!hops[4].is_static);

  SECTION("without the statics table the statics array's element is an index") {
    const EdgeNamer plain(*graph, heap.names, *slots, {});
    CHECK(plain.name_edge(0, 1).text == "[1]");
  }
  SECTION("a type without a layout is unnamed, with the reason") {
    heap.names = heap.make_names(false);
    const auto hop = EdgeNamer(*graph, heap.names, *slots, statics).name_edge(3, 4);
    CHECK(hop.kind == EdgeNameKind::Unknown);
    CHECK(hop.text.empty());
    CHECK(hop.reason == UnnamedReason::NoLayout);
  }
}

TEST_CASE("without recorded slots no hop is named, and the reason says so") {
  Heap heap(false);
  auto graph = HeapGraph::build(heap.objects, heap.roots);
  REQUIRE(graph);
  auto slots = EdgeSlots::build(heap.objects, *graph);
  REQUIRE(slots);
  CHECK(slots->empty());
  const auto hops = EdgeNamer(*graph, heap.names, *slots, {}).name_path(std::vector<NodeIndex>{0, 1, 2});
  for (size_t h = 1; h < hops.size(); ++h) {
    CHECK(hops[h].kind == EdgeNameKind::Unknown);
    CHECK(hops[h].reason == UnnamedReason::NoSlots);
  }
}

TEST_CASE("an unknown slot stays unnamed instead of borrowing a neighbour's field") {
  Heap heap(true);
  heap.objects.reference_slots[2] = kUnknownSlot;  // Dict -> Entry[]
  auto graph = HeapGraph::build(heap.objects, heap.roots);
  REQUIRE(graph);
  auto slots = EdgeSlots::build(heap.objects, *graph);
  REQUIRE(slots);
  const auto hop = EdgeNamer(*graph, heap.names, *slots, {}).name_edge(1, 2);
  CHECK(hop.kind == EdgeNameKind::Unknown);
  CHECK(hop.reason == UnnamedReason::SlotUnknown);
}

TEST_CASE("each successor edge is named by its own slot, also when two fields hold the same object") {
  Heap heap(true);
  heap.objects.reference_targets[1] = 0x1200;  // Dict._buckets and Dict._entries both hold Entry[]
  auto graph = HeapGraph::build(heap.objects, heap.roots);
  REQUIRE(graph);
  auto slots = EdgeSlots::build(heap.objects, *graph);
  REQUIRE(slots);
  const EdgeNamer namer(*graph, heap.names, *slots, {});
  REQUIRE(graph->successors(1).size() == 3);
  CHECK(namer.name_successor(1, 0).text == "_buckets");
  CHECK(namer.name_successor(1, 1).text == "_entries");
  CHECK(namer.name_successor(1, 2).text == "_comparer");
  CHECK(namer.name_edge(1, 2).text == "_buckets");  // by target: the first field holding it
  CHECK(namer.name_successor(2, 0).text == "[2].value");
  const auto past = namer.name_successor(1, 3);
  CHECK(past.kind == EdgeNameKind::Unknown);
  CHECK(past.reason == UnnamedReason::SlotUnknown);
}
