// Identity through a real recording: simulated histories written with gcsnap::Writer, read
// back with Recording, followed with map_objects/follow_address and checked against the
// simulation; gaps in the recorded GCs stop identity instead of guessing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "gcsnap/object_identity.hpp"
#include "gcsnap/writer.hpp"
#include "heap_sim.hpp"
#include "temp_path.hpp"

namespace gcsnap::test {

TEST_CASE("map_objects over a written recording matches the simulation", "[identity][reader]") {
  for (uint64_t seed = 3000; seed < 3010; ++seed) {
    HeapSim sim(seed);
    for (int i = 0; i < 12; ++i) {
      sim.mutate();
      sim.collect();
    }
    const std::string path = temp_path("identity-" + std::to_string(seed));
    {
      auto w = Writer::create(path);
      REQUIRE(w.is_ok());
      for (const auto& g : sim.gcs()) REQUIRE(write_sim_gc(**w, sim, g, g.info.gc_number % 4 == 1, g.info.gc_number, 0).is_ok());
      REQUIRE((*w)->close().is_ok());
    }
    auto rec = Recording::open(path);
    REQUIRE(rec.is_ok());
    const size_t a = 0, b = sim.gcs().size() - 1;  // GC 1 (walked) to the last GC
    auto objects = (*rec)->read_objects(a);
    REQUIRE(objects.is_ok());
    auto mapper = map_objects(**rec, a, b, objects->addresses, objects->generations);
    REQUIRE(mapper.is_ok());
    const auto& first = sim.gcs().front();
    const auto& last = sim.gcs().back();
    for (size_t k = 0; k < first.present.size(); ++k) {
      const size_t id = first.present[k];
      const uint64_t died = sim.objects()[id].died_at;
      REQUIRE(mapper->died_at(k) == died);
      if (!died) REQUIRE(mapper->addresses()[k] == last.address[id]);
    }
    // follow_address agrees with the bulk answer for a few objects.
    for (size_t k = 0; k < first.present.size(); k += 17) {
      auto h = follow_address(**rec, a, objects->addresses[k], objects->generations[k]);
      REQUIRE(h.is_ok());
      CHECK(h->died_at == mapper->died_at(k));
      CHECK(h->gap_at == 0);
      if (!h->died_at) CHECK(h->steps.back().to == mapper->addresses()[k]);
    }
    std::filesystem::remove(path);
  }
}

TEST_CASE("a gap in the recorded GCs stops identity", "[identity][reader]") {
  HeapSim sim(77);
  for (int i = 0; i < 4; ++i) {
    sim.mutate();
    sim.collect();
  }
  const std::string path = temp_path("identity-gap");
  {
    auto w = Writer::create(path);
    REQUIRE(w.is_ok());
    REQUIRE(write_sim_gc(**w, sim, sim.gcs()[0], true, 1, 0).is_ok());
    REQUIRE(write_sim_gc(**w, sim, sim.gcs()[1], false, 2, 0).is_ok());
    REQUIRE(write_sim_gc(**w, sim, sim.gcs()[2], false, 4, 0).is_ok());  // GC 3 is missing
    REQUIRE(write_sim_gc(**w, sim, sim.gcs()[3], true, 5, 3).is_ok());   // and GC 5 dropped some ranges
    REQUIRE((*w)->close().is_ok());
  }
  auto rec = Recording::open(path);
  REQUIRE(rec.is_ok());
  CHECK(has_complete_transition(**rec, 1));
  CHECK(!has_complete_transition(**rec, 2));
  CHECK(!has_complete_transition(**rec, 3));
  auto objects = (*rec)->read_objects(0);
  REQUIRE(objects.is_ok());
  auto mapped = map_objects(**rec, 0, 3, objects->addresses, objects->generations);
  REQUIRE(!mapped.is_ok());
  CHECK(mapped.error().code == ErrorCode::InconsistentData);
  CHECK(map_objects(**rec, 0, 1, objects->addresses, objects->generations).is_ok());
  // Pick an object that survives GC 2 in the simulation: following stops before GC 4.
  const auto& first = sim.gcs()[0];
  for (size_t k = 0; k < first.present.size(); ++k) {
    const uint64_t died = sim.objects()[first.present[k]].died_at;
    if (died == 2) continue;
    auto h = follow_address(**rec, 0, objects->addresses[k], objects->generations[k]);
    REQUIRE(h.is_ok());
    CHECK(h->gap_at == 4);
    CHECK(h->died_at == 0);
    REQUIRE(h->steps.size() == 1);
    CHECK(h->steps[0].gc_number == 2);
    break;
  }
  std::filesystem::remove(path);
}

}  // namespace gcsnap::test
