// MemberMarks (leaks/member_marks.hpp): the holder search without the owner, given the marks
// of a group's members and their dominators only, answers as with every node marked, and so
// does the owner search with the members' predecessors marked too; and clear() leaves no mark
// behind for the next group.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "leaks/member_marks.hpp"

namespace gcsnap {
namespace {

// N objects of types 1..4 (type 3 an array), each with up to 3 references, two of them rooted.
struct RandomHeap {
  ObjectTable objects;
  RootTable roots;
  std::vector<uint32_t> types;
};

RandomHeap random_heap(std::mt19937& rng, size_t n) {
  RandomHeap h;
  h.objects.reference_offsets.push_back(0);
  for (size_t i = 0; i < n; ++i) {
    h.types.push_back(1 + static_cast<uint32_t>(rng() % 4));
    h.objects.addresses.push_back(0x1000 + 0x40 * i);
    h.objects.type_ids.push_back(h.types.back());
    h.objects.sizes.push_back(32);
    h.objects.generations.push_back(Generation::Gen0);
    for (size_t j = rng() % 4; j > 0; --j) h.objects.reference_targets.push_back(0x1000 + 0x40 * (rng() % n));
    h.objects.reference_offsets.push_back(h.objects.reference_targets.size());
  }
  for (const size_t r : {size_t{0}, static_cast<size_t>(rng() % n)}) {
    h.roots.object_ids.push_back(0x1000 + 0x40 * r);
    h.roots.kinds.push_back(RootKind::Handle);
    h.roots.flags.push_back(0);
    h.roots.root_ids.push_back(h.roots.root_ids.size() + 1);
  }
  return h;
}

}  // namespace

TEST_CASE("MemberMarks: the holder search answers as with every node marked", "[leaks]") {
  std::mt19937 rng(45);
  const std::vector<uint8_t> array_types = {0, 0, 0, 1, 0};
  size_t dominated = 0, owners = 0;
  for (int round = 0; round < 100; ++round) {
    const size_t n = 20 + rng() % 60;
    const RandomHeap h = random_heap(rng, n);
    auto graph = HeapGraph::build(h.objects, h.roots);
    REQUIRE(graph.is_ok());
    REQUIRE(graph->build_reverse().is_ok());
    auto dom = DominatorTree::compute(*graph);
    REQUIRE(dom.is_ok());
    std::vector<uint32_t> position(n, 0);
    for (uint32_t i = 0; i < dom->preorder().size(); ++i) position[dom->preorder()[i]] = i;
    leaks::MemberMarks sparse(n);
    for (int group = 0; group < 5; ++group) {
      // Some of the objects of one type are the group (counted or not); the rest are excluded.
      const uint32_t type = 1 + static_cast<uint32_t>(rng() % 4);
      std::vector<HolderMark> full(n, HolderMark::Outside);
      std::vector<NodeIndex> counted, others;
      for (NodeIndex v = 0; v < n; ++v) {
        if (h.types[v] != type) continue;
        const unsigned pick = rng() % 4;
        full[v] = pick == 0 ? HolderMark::Excluded : pick == 1 ? HolderMark::Member : HolderMark::Counted;
        if (pick == 1) others.push_back(v);
        if (pick >= 2) counted.push_back(v);
      }
      const auto want = find_group_holder(*graph, *dom, full, counted, position, array_types, false);
      sparse.mark(counted, others, *dom, h.types, type);
      const auto got = find_group_holder(*graph, *dom, sparse.marks(), counted, position, array_types, false);
      sparse.clear();
      REQUIRE(want.is_ok());
      REQUIRE(got.is_ok());
      INFO("round " << round << " group " << group);
      CHECK(got->found == want->found);
      CHECK(got->node == want->node);
      CHECK(got->via_array == want->via_array);
      CHECK(got->members_dominated == want->members_dominated);
      dominated += want->found;
      CHECK(std::all_of(sparse.marks().begin(), sparse.marks().end(),
                        [](HolderMark m) { return m == HolderMark::Outside; }));
      // With the members' predecessors marked too, the owner search answers as well.
      const auto owner_want = find_group_holder(*graph, *dom, full, counted, position, array_types, true);
      sparse.mark(counted, others, *dom, h.types, type);
      sparse.mark_entries(counted, others, *graph, h.types, type);
      const auto owner_got = find_group_holder(*graph, *dom, sparse.marks(), counted, position, array_types, true);
      sparse.clear();
      REQUIRE(owner_want.is_ok());
      REQUIRE(owner_got.is_ok());
      CHECK(owner_got->found == owner_want->found);
      CHECK(owner_got->is_owner == owner_want->is_owner);
      CHECK(owner_got->node == owner_want->node);
      CHECK(owner_got->entries == owner_want->entries);
      owners += owner_want->is_owner;
      CHECK(std::all_of(sparse.marks().begin(), sparse.marks().end(),
                        [](HolderMark m) { return m == HolderMark::Outside; }));
    }
  }
  CHECK(dominated > 50);  // the comparison saw holders, not only empty answers
  CHECK(owners > 20);     // and owners found by the owner search
}

}  // namespace gcsnap
