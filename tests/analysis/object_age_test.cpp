// trace_object_ages through a written recording, against the simulation's truth: an object's
// age is the number of earlier GCs it lived through, i.e. the GCs before the walk's that
// happened after it was allocated; the count is a lower bound when it reaches the first GC
// recorded.
#include "gcsnap/object_age.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

#include "heap_sim.hpp"
#include "temp_path.hpp"

namespace gcsnap::test {
namespace {

struct Expected {
  uint64_t gcs;
  bool at_least;
};

// The simulation numbers its GCs from 1; gcs()[g - 1].address has an entry for every object
// allocated before GC g.
Expected expected_age(const HeapSim& sim, size_t walk_gc, size_t id) {
  const auto& gcs = sim.gcs();
  if (sim.objects()[id].gen == Generation::NonGcHeap) return {walk_gc - 1, true};
  uint64_t age = 0;
  for (size_t g = 1; g < walk_gc; ++g) age += id < gcs[g - 1].address.size();
  return {age, id < gcs[0].address.size()};
}

}  // namespace

TEST_CASE("object ages from the recorded ranges match the simulation", "[age][reader]") {
  size_t checked = 0, old = 0;
  for (uint64_t seed = 4100; seed < 4108; ++seed) {
    HeapSim sim(seed);
    for (int i = 0; i < 14; ++i) {
      sim.mutate();
      sim.collect();
    }
    const std::string path = temp_path("ages-" + std::to_string(seed));
    {
      auto w = Writer::create(path);
      REQUIRE(w.is_ok());
      for (const auto& g : sim.gcs()) REQUIRE(write_sim_gc(**w, sim, g, true, g.info.gc_number).is_ok());
      REQUIRE((*w)->close().is_ok());
    }
    auto rec = Recording::open(path);
    REQUIRE(rec.is_ok());
    for (size_t walk_gc : {size_t{1}, size_t{6}, sim.gcs().size()}) {
      auto objects = (*rec)->read_objects(walk_gc - 1);
      REQUIRE(objects.is_ok());
      auto ages = trace_object_ages(**rec, walk_gc - 1, objects->addresses, objects->generations);
      REQUIRE(ages.is_ok());
      const auto& present = sim.gcs()[walk_gc - 1].present;  // address order, as the walk
      REQUIRE(ages->size() == present.size());
      for (size_t k = 0; k < present.size(); ++k) {
        const Expected want = expected_age(sim, walk_gc, present[k]);
        INFO("seed " << seed << ", walk after GC " << walk_gc << ", object " << present[k]);
        CHECK((*ages)[k].gcs == want.gcs);
        CHECK((*ages)[k].at_least == want.at_least);
        ++checked;
        old += want.gcs > 2;
      }
    }
    std::filesystem::remove(path);
  }
  CHECK(checked > 1000);
  CHECK(old > 100);  // the histories do hold objects that lived through several GCs
}

TEST_CASE("trace_object_ages refuses a GC index past the recording", "[age][reader]") {
  HeapSim sim(4200);
  sim.mutate();
  sim.collect();
  const std::string path = temp_path("ages-range");
  {
    auto w = Writer::create(path);
    REQUIRE(w.is_ok());
    REQUIRE(write_sim_gc(**w, sim, sim.gcs()[0], true, 1).is_ok());
    REQUIRE((*w)->close().is_ok());
  }
  auto rec = Recording::open(path);
  REQUIRE(rec.is_ok());
  const uint64_t address = 0x200000000;
  auto ages = trace_object_ages(**rec, 1, std::span<const uint64_t>(&address, 1));
  REQUIRE_FALSE(ages.is_ok());
  CHECK(ages.error().code == ErrorCode::NotFound);
  std::filesystem::remove(path);
}

}  // namespace gcsnap::test
