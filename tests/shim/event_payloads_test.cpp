// The GC events' payloads (event_payloads.hpp): the layouts the runtime writes, and payloads
// that are short, declare more rows than they hold, or hold rows of another size.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "event_payloads.hpp"
#include "payload_bytes.hpp"

using namespace gcsnap::shim;
using gcsnap::shim::test::Bytes;

TEST_CASE("event payloads: GCStart and GCEnd", "[shim][events]") {
  auto start = parse_gc_start(Bytes().u32(42).u32(2).u32(7).u32(1).u16(0).u64(0).data);
  REQUIRE(start);
  CHECK(start->count == 42);
  CHECK(start->depth == 2);
  CHECK(start->reason == 7);
  CHECK(start->kind == GcKind::Background);
  auto end = parse_gc_end(Bytes().u32(42).u32(2).u16(0).data);
  REQUIRE(end);
  CHECK(end->count == 42);

  CHECK_FALSE(parse_gc_start(Bytes().u32(42).u32(2).u32(7).data));             // no Type
  CHECK_FALSE(parse_gc_start(Bytes().u32(42).u32(3).u32(7).u32(0).u16(0).data));  // depth 3
  CHECK_FALSE(parse_gc_start(Bytes().u32(42).u32(1).u32(7).u32(3).u16(0).data));  // type 3
  CHECK_FALSE(parse_gc_end(Bytes().u32(42).u16(0).data));
  CHECK_FALSE(parse_gc_end({}));
}

TEST_CASE("event payloads: surviving and moved ranges", "[shim][events]") {
  SurvivingBatch surviving;
  REQUIRE(parse_surviving(Bytes().u32(0).u32(2).u16(0).u64(0x1000).u64(0x40).u64(0x2000).u64(0x18).data, surviving));
  CHECK(surviving.starts == std::vector<uint64_t>{0x1000, 0x2000});
  CHECK(surviving.lengths == std::vector<uint64_t>{0x40, 0x18});
  MovedBatch moved;
  REQUIRE(parse_moved(Bytes().u32(3).u32(1).u16(0).u64(0x5000).u64(0x3000).u64(0x20).data, moved));
  CHECK(moved.old_starts == std::vector<uint64_t>{0x5000});
  CHECK(moved.new_starts == std::vector<uint64_t>{0x3000});
  CHECK(moved.lengths == std::vector<uint64_t>{0x20});
  REQUIRE(parse_moved(Bytes().u32(0).u32(0).u16(0).data, moved));
  CHECK(moved.old_starts.empty());
}

TEST_CASE("event payloads: hostile bulk payloads are refused whole", "[shim][events]") {
  SurvivingBatch surviving;
  // Count 3, two rows: a short payload.
  CHECK_FALSE(parse_surviving(Bytes().u32(0).u32(3).u16(0).u64(1).u64(2).u64(3).u64(4).data, surviving));
  CHECK(surviving.starts.empty());
  // A count near 2^32 with nothing behind it (no huge allocation, no read past the end).
  CHECK_FALSE(parse_surviving(Bytes().u32(0).u32(0xffffffffu).u16(0).u64(1).u64(2).data, surviving));
  // Count 1 with rows of another size (a moved row read as surviving).
  CHECK_FALSE(parse_surviving(Bytes().u32(0).u32(1).u16(0).u64(1).u64(2).u64(3).data, surviving));
  // Shorter than the head.
  CHECK_FALSE(parse_surviving(Bytes().u32(0).u32(0).data, surviving));
  MovedBatch moved;
  CHECK_FALSE(parse_moved(Bytes().u32(0).u32(1).u16(0).u64(1).u64(2).data, moved));
  NodeBatch nodes;
  CHECK_FALSE(parse_nodes(Bytes().u32(0).u32(1).u16(0).u64(1).u64(2).u64(3).data, nodes));
  std::vector<uint64_t> edges;
  CHECK_FALSE(parse_edges(Bytes().u32(0).u32(2).u16(0).u64(1).u32(0).data, edges));
  RootBatch roots;
  CHECK_FALSE(parse_roots(Bytes().u32(0).u32(1).u16(0).u64(1).u8(0).u32(0).data, roots));
  DependentBatch dependents;
  CHECK_FALSE(parse_dependent_handles(Bytes().u32(0).u32(1).u16(0).u64(1).u64(2).data, dependents));
}

TEST_CASE("event payloads: a heap walk's nodes, edges, roots and dependent handles", "[shim][events]") {
  NodeBatch nodes;
  REQUIRE(parse_nodes(Bytes().u32(0).u32(1).u16(0).u64(0x7000).u64(24).u64(0xabc).u64(2).data, nodes));
  CHECK(nodes.addresses == std::vector<uint64_t>{0x7000});
  CHECK(nodes.sizes == std::vector<uint64_t>{24});
  CHECK(nodes.types == std::vector<uint64_t>{0xabc});
  CHECK(nodes.edge_counts == std::vector<uint64_t>{2});
  std::vector<uint64_t> edges;
  REQUIRE(parse_edges(Bytes().u32(0).u32(2).u16(0).u64(0x8000).u32(0).u64(0x9000).u32(0).data, edges));
  CHECK(edges == std::vector<uint64_t>{0x8000, 0x9000});
  // Packed 21-byte rows: address, kind u8, flags u32, id.
  RootBatch roots;
  REQUIRE(parse_roots(Bytes().u32(0).u32(2).u16(0).u64(0x7000).u8(2).u32(2).u64(0x55).u64(0).u8(0).u32(1).u64(9).data,
                      roots));
  CHECK(roots.objects == std::vector<uint64_t>{0x7000, 0});
  CHECK(roots.kinds == std::vector<uint32_t>{2, 0});
  CHECK(roots.flags == std::vector<uint32_t>{2, 1});
  CHECK(roots.root_ids == std::vector<uint64_t>{0x55, 9});
  DependentBatch dependents;
  REQUIRE(parse_dependent_handles(Bytes().u32(0).u32(1).u16(0).u64(0x7000).u64(0x8000).u64(0x66).data, dependents));
  CHECK(dependents.keys == std::vector<uint64_t>{0x7000});
  CHECK(dependents.values == std::vector<uint64_t>{0x8000});
  // Event root kinds 0 stack, 1 finalizer, 2 handle are the profiling API's 1, 2, 3.
  CHECK(profiler_root_kind(0) == 1);
  CHECK(profiler_root_kind(1) == 2);
  CHECK(profiler_root_kind(2) == 3);
  CHECK(profiler_root_kind(9) == 0);
}
