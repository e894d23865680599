// Allocation samples joined to a heap walk (gcsnap/alloc_join.hpp) on the hand-made recording
// of support/alloc_rounds.hpp, whose answers are known by construction.

#include "gcsnap/alloc_join.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "alloc_rounds.hpp"
#include "gcsnap/reader.hpp"
#include "leak_rounds.hpp"
#include "temp_path.hpp"

using namespace gcsnap;

namespace {

std::unique_ptr<Recording> open_rounds(const test::TempFile& file) {
  REQUIRE(test::write_alloc_rounds(file.path()).is_ok());
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  return std::move(*rec);
}

}  // namespace

TEST_CASE("alloc join: live samples are found at their walk addresses, dead ones are not") {
  test::TempFile file("alloc_join");
  const auto rec = open_rounds(file);
  REQUIRE(rec->gcs().size() == 5);
  auto join = AllocJoin::load(*rec, 4);
  REQUIRE(join.is_ok());
  REQUIRE(join->samples().size() == 1 + 4 * 7);
  size_t live = 0;
  for (size_t i = 0; i < join->samples().size(); ++i) {
    const FollowedSample& f = join->samples()[i];
    const bool temp = f.sample.class_id == 0x102;
    CHECK(f.alive == !temp);
    if (f.alive) {
      CHECK(join->find_live(f.address) == &join->samples()[i]);
      ++live;
    } else {
      CHECK(join->find_live(f.sample.address) == nullptr);
    }
  }
  CHECK(live == 17);
  CHECK(join->find_live(0x1) == nullptr);
}

TEST_CASE("alloc join: sites skip runtime frames and name what is missing as unknown") {
  test::TempFile file("alloc_join_sites");
  const auto rec = open_rounds(file);
  auto join = AllocJoin::load(*rec, 4);
  REQUIRE(join.is_ok());
  std::vector<uint32_t> items;
  for (size_t i = 0; i < join->samples().size(); ++i)
    if (join->samples()[i].alive && join->samples()[i].block_pos > 0) items.push_back(static_cast<uint32_t>(i));
  REQUIRE(items.size() == 16);
  auto sites = rank_alloc_sites(*join, items, 0);
  REQUIRE(sites.is_ok());
  REQUIRE(sites->size() == 4);
  CHECK((*sites)[0].site == "App.Cache.Add");
  CHECK((*sites)[0].samples == 12);
  CHECK((*sites)[0].share == Approx(0.75));
  CHECK((*sites)[1].site == "App.Loader.Load");
  CHECK((*sites)[1].samples == 2);
  // Stack 4 names a function no block declares; stack 77 is declared nowhere.
  CHECK((*sites)[2].site == "<function 0xf9>");
  CHECK((*sites)[3].site == kUnknownAllocSite);
  // 32-byte objects: each sample stands for about 102,400/32 objects (1/(1 - q^32)).
  CHECK((*sites)[0].est_objects == Approx(12 * 3200.5).epsilon(0.001));
  CHECK((*sites)[0].est_bytes == Approx(12 * 3200.5 * 32).epsilon(0.001));
  auto top = rank_alloc_sites(*join, items, 1);
  REQUIRE(top.is_ok());
  CHECK(top->size() == 1);
  const std::vector<uint32_t> bad = {1000};
  CHECK_FALSE(rank_alloc_sites(*join, bad, 0).is_ok());
}

TEST_CASE("alloc join: stacks list every frame innermost first") {
  test::TempFile file("alloc_join_stack");
  const auto rec = open_rounds(file);
  auto join = AllocJoin::load(*rec, 4);
  REQUIRE(join.is_ok());
  const AllocSample& first = join->samples()[0].sample;  // the item of walk 1, stack 3
  CHECK(join->site(first) == "App.Worker.Run");
  const auto stack = join->stack(first);
  REQUIRE(stack.size() == 2);
  CHECK(stack[0] == "App.Worker.Run");
  CHECK(stack[1] == "<native 0x7f00dead>");
  AllocSample unknown = first;
  unknown.stack_id = 0;
  CHECK(join->site(unknown) == kUnknownAllocSite);
  CHECK(join->stack(unknown).empty());
}

TEST_CASE("alloc join: a recording without samples joins nothing") {
  test::TempFile file("alloc_join_none");
  {
    auto w = Writer::create(file.path());
    REQUIRE(w.is_ok());
    test::RoundHeap h({"App.Thing"});
    h.root(h.add(1));
    REQUIRE(h.write_gc(**w).is_ok());
    REQUIRE((*w)->close().is_ok());
  }
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  auto join = AllocJoin::load(**rec, 0);
  REQUIRE(join.is_ok());
  CHECK(join->empty());
  CHECK(join->find_live(0x10000) == nullptr);
  CHECK_FALSE(AllocJoin::load(**rec, 3).is_ok());
}
