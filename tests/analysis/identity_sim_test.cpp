// Identity and object-level diffs against the explicit bookkeeping of a simulated heap.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "gcsnap/object_diff.hpp"
#include "gcsnap/object_identity.hpp"
#include "heap_sim.hpp"

namespace gcsnap::test {
namespace {

HeapSim run_sim(uint64_t seed, int gc_count, SimOptions options = {}) {
  HeapSim sim(seed, options);
  for (int i = 0; i < gc_count; ++i) {
    sim.mutate();
    sim.collect();
  }
  return sim;
}

// Transition of GC n (1-based) with the bounds recorded at GC n-1 (none before GC 1).
GcTransition transition(const HeapSim& sim, uint64_t n, bool with_bounds) {
  const auto& g = sim.gcs()[n - 1];
  std::vector<GenerationRange> before;
  if (with_bounds && n > 1) before = sim.gcs()[n - 2].bounds;
  auto t = GcTransition::build(g.info, g.ranges, before);
  REQUIRE(t.is_ok());
  return std::move(t).value();
}

struct Pick {
  uint64_t a, b;
};

Pick pick_pair(std::mt19937_64& rng, uint64_t gc_count) {
  const uint64_t a = std::uniform_int_distribution<uint64_t>(1, gc_count)(rng);
  const uint64_t b = std::uniform_int_distribution<uint64_t>(a, gc_count)(rng);
  return {a, b};
}

void check_bulk(const HeapSim& sim, Pick p, bool with_bounds) {
  const auto& ga = sim.gcs()[p.a - 1];
  const auto& gb = sim.gcs()[p.b - 1];
  const ObjectTable walk = sim.walk(p.a);
  auto created = BulkMapper::create(walk.addresses, walk.generations);
  REQUIRE(created.is_ok());
  BulkMapper& mapper = *created;
  for (uint64_t n = p.a + 1; n <= p.b; ++n) REQUIRE(mapper.apply(transition(sim, n, with_bounds)).is_ok());
  for (size_t k = 0; k < ga.present.size(); ++k) {
    const size_t id = ga.present[k];
    const uint64_t died = sim.objects()[id].died_at;
    INFO("object " << id << " from GC " << p.a << " to GC " << p.b << " truth died_at " << died);
    if (died != 0 && died <= p.b) {
      REQUIRE(mapper.died_at(k) == died);
    } else {
      REQUIRE(mapper.died_at(k) == 0);
      REQUIRE(mapper.addresses()[k] == gb.address[id]);
    }
  }
  // The same objects given in reverse address order (the mapper then keeps a permutation from
  // the start), as vectors it takes, get the same answers.
  std::vector<uint64_t> reversed(walk.addresses.rbegin(), walk.addresses.rend());
  std::vector<Generation> reversed_gens(walk.generations.rbegin(), walk.generations.rend());
  auto other = BulkMapper::create(std::move(reversed), std::move(reversed_gens));
  REQUIRE(other.is_ok());
  for (uint64_t n = p.a + 1; n <= p.b; ++n) REQUIRE(other->apply(transition(sim, n, with_bounds)).is_ok());
  const size_t count = walk.addresses.size();
  for (size_t k = 0; k < count; ++k) {
    REQUIRE(other->died_at(count - 1 - k) == mapper.died_at(k));
    REQUIRE(other->addresses()[count - 1 - k] == mapper.addresses()[k]);
  }
}

void check_single(const HeapSim& sim, Pick p, size_t id) {
  const auto& ga = sim.gcs()[p.a - 1];
  uint64_t x = ga.address[id];
  Generation hint = ga.gen[id];
  const uint64_t died = sim.objects()[id].died_at;
  for (uint64_t n = p.a + 1; n <= sim.gcs().size(); ++n) {
    const auto step = transition(sim, n, true).follow(x, hint);
    INFO("object " << id << " at GC " << n << " truth died_at " << died);
    if (died == n) {
      REQUIRE(step.fate == Fate::Died);
      return;
    }
    REQUIRE(step.fate != Fate::Died);
    REQUIRE(step.address == sim.gcs()[n - 1].address[id]);
    REQUIRE((step.fate == Fate::Moved) == (step.address != x));
    x = step.address;
    hint = sim.gcs()[n - 1].gen[id];
  }
  REQUIRE((died == 0 || died > sim.gcs().size()));
}

void check_object_diff(const HeapSim& sim, Pick p) {
  const ObjectTable a = sim.walk(p.a), b = sim.walk(p.b);
  const auto& ga = sim.gcs()[p.a - 1];
  const auto& gb = sim.gcs()[p.b - 1];
  auto created = BulkMapper::create(a.addresses, a.generations);
  REQUIRE(created.is_ok());
  BulkMapper& mapper = *created;
  for (uint64_t n = p.a + 1; n <= p.b; ++n) REQUIRE(mapper.apply(transition(sim, n, true)).is_ok());
  auto diff = diff_objects(a, b, mapper.addresses(), AliveBits{mapper.alive_bits()});
  REQUIRE(diff.is_ok());
  REQUIRE(diff->missing_in_b.empty());
  // Truth: ids present at A and B survived; at A only died; at B only are new.
  std::vector<size_t> b_row_of_id(sim.objects().size(), kNoObject);
  for (size_t k = 0; k < gb.present.size(); ++k) b_row_of_id[gb.present[k]] = k;
  uint64_t survivors = 0, dead = 0;
  for (size_t k = 0; k < ga.present.size(); ++k) {
    const size_t id = ga.present[k];
    REQUIRE(diff->b_index_of_a[k] == b_row_of_id[id]);
    if (b_row_of_id[id] == kNoObject) ++dead;
    else ++survivors;
  }
  REQUIRE(diff->surviving_count == survivors);
  REQUIRE(diff->dead_objects.size() == dead);
  uint64_t fresh = 0;
  for (size_t k = 0; k < gb.present.size(); ++k) {
    const size_t id = gb.present[k];
    const bool is_new = id >= ga.address.size() || std::find(ga.present.begin(), ga.present.end(), id) == ga.present.end();
    if (is_new) {
      ++fresh;
      REQUIRE(std::binary_search(diff->new_objects.begin(), diff->new_objects.end(), k));
    }
  }
  REQUIRE(diff->new_objects.size() == fresh);
}

}  // namespace

TEST_CASE("bulk mapper follows every object like the simulation", "[identity][sim]") {
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    const int gcs = 5 + static_cast<int>(seed % 20);
    SimOptions options;
    options.split_and_shuffle_ranges = seed % 3 != 0;
    const HeapSim sim = run_sim(seed, gcs, options);
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 4; ++trial) {
      const Pick p = pick_pair(rng, sim.gcs().size());
      INFO("seed " << seed);
      check_bulk(sim, p, true);
      // Without bounds the hints (object table generation, then promotion) must suffice here,
      // because the simulation promotes exactly by one generation.
      check_bulk(sim, p, false);
    }
  }
}

TEST_CASE("single-address follow agrees with the simulation", "[identity][sim]") {
  for (uint64_t seed = 500; seed < 560; ++seed) {
    const HeapSim sim = run_sim(seed, 18);
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 20; ++trial) {
      const Pick p = pick_pair(rng, sim.gcs().size());
      const auto& present = sim.gcs()[p.a - 1].present;
      if (present.empty()) continue;
      INFO("seed " << seed);
      check_single(sim, p, present[std::uniform_int_distribution<size_t>(0, present.size() - 1)(rng)]);
    }
  }
}

TEST_CASE("object diff matches the simulation's new, dead and surviving objects", "[diff][sim]") {
  for (uint64_t seed = 1000; seed < 1080; ++seed) {
    const HeapSim sim = run_sim(seed, 15);
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 3; ++trial) {
      INFO("seed " << seed);
      check_object_diff(sim, pick_pair(rng, sim.gcs().size()));
    }
  }
}

TEST_CASE("merge lookups agree with binary-search lookups", "[identity][sim]") {
  for (uint64_t seed = 2000; seed < 2030; ++seed) {
    const HeapSim sim = run_sim(seed, 12);
    for (uint64_t n = 2; n <= sim.gcs().size(); ++n) {
      const GcTransition t = transition(sim, n, seed % 2 == 0);
      // Every present object of the previous GC plus addresses in the gaps between them.
      std::vector<uint64_t> xs;
      for (size_t id : sim.gcs()[n - 2].present) {
        xs.push_back(sim.gcs()[n - 2].address[id]);
        xs.push_back(sim.gcs()[n - 2].address[id] + 8);
      }
      std::sort(xs.begin(), xs.end());
      std::vector<GcTransition::Step> steps(xs.size());
      t.follow_sorted(xs, {}, steps);
      for (size_t i = 0; i < xs.size(); ++i) {
        const auto one = t.follow(xs[i]);
        REQUIRE(one.fate == steps[i].fate);
        REQUIRE(one.address == steps[i].address);
        REQUIRE(one.generation_before == steps[i].generation_before);
      }
    }
  }
}

TEST_CASE("the simulation exercises moves, reuse and every fate", "[identity][sim]") {
  const HeapSim sim = run_sim(7, 40);
  uint64_t moved = 0, surviving = 0, died = 0;
  for (const auto& g : sim.gcs()) {
    moved += g.ranges.moved_lengths.size();
    surviving += g.ranges.surviving_lengths.size();
  }
  for (const auto& o : sim.objects()) died += o.died_at != 0;
  CHECK(moved > 50);
  CHECK(surviving > 50);
  CHECK(died > 100);
}

}  // namespace gcsnap::test

namespace gcsnap::test {

// format-spec.md §5.2 (1.4): a background GC (gen2, LOH, POH collected; gen0 not) condemns
// neither young generation, so a young object outside its surviving ranges is not dead there.
TEST_CASE("a background GC condemns gen2 and the large heaps only", "[identity]") {
  GcInfo bgc;
  bgc.generations_collected = generation_bit(Generation::Gen2) | generation_bit(Generation::LargeObjectHeap) |
                              generation_bit(Generation::PinnedObjectHeap);
  CHECK(bgc.background());
  CHECK(bgc.condemned_generation() == 2);
  CHECK_FALSE(is_condemned(bgc, Generation::Gen0));
  CHECK_FALSE(is_condemned(bgc, Generation::Gen1));
  CHECK(is_condemned(bgc, Generation::Gen2));
  CHECK(is_condemned(bgc, Generation::LargeObjectHeap));
  CHECK(promoted_generation(bgc, Generation::Gen1) == Generation::Gen1);
  GcInfo full = bgc;
  full.generations_collected = 0x1f;
  CHECK_FALSE(full.background());
  CHECK(is_condemned(full, Generation::Gen0));
  CHECK(promoted_generation(full, Generation::Gen0) == Generation::Gen1);

  RangeTable ranges;
  ranges.surviving_starts = {0x2000};
  ranges.surviving_lengths = {0x100};
  const GenerationRange bounds[] = {{Generation::Gen0, 0x1000, 0x100, 0x1000}, {Generation::Gen2, 0x2000, 0x200, 0x1000}};
  auto t = GcTransition::build(bgc, ranges, bounds);
  REQUIRE(t);
  CHECK(t->follow(0x1010, Generation::Unknown).fate == Fate::NotCondemned);  // young: left alone
  CHECK(t->follow(0x2010, Generation::Unknown).fate == Fate::Stayed);
  CHECK(t->follow(0x2110, Generation::Unknown).fate == Fate::Died);  // gen2, in no range
}

}  // namespace gcsnap::test
