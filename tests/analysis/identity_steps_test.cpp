// The delta-coded maps between walks of `leaks` (identity_steps.hpp): composing them from the
// last walk backwards gives each object's node at the last walk, as composing the plain maps
// does.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "leaks/identity_steps.hpp"
#include "leaks/leak_scan.hpp"

namespace gcsnap {
namespace {

// A map from N objects to M: each survives with P percent, mostly in order, some moved far
// (a promotion to another region) and a few at the largest node numbers.
std::vector<uint32_t> random_step(std::mt19937& rng, size_t n, size_t m, unsigned p) {
  std::vector<uint32_t> out(n, leaks::kNoBirth);
  uint32_t next = 0;
  for (auto& x : out) {
    if (rng() % 100 >= p) continue;
    if (rng() % 10 == 0) x = static_cast<uint32_t>(rng() % m);
    else if (next < m) x = next++;
    if (rng() % 50 == 0) x = static_cast<uint32_t>(m - 1);
  }
  return out;
}

}  // namespace

TEST_CASE("identity steps composed backwards are the plain maps composed", "[leaks]") {
  std::mt19937 rng(5);
  for (const unsigned survival : {0u, 30u, 90u, 100u}) {
    const std::vector<size_t> sizes{1000, 1200, 1, 900, 5000, 4000};
    std::vector<std::vector<uint32_t>> plain;
    leaks::IdentitySteps steps;
    steps.reset(sizes.size());
    for (size_t w = 0; w + 1 < sizes.size(); ++w) {
      plain.push_back(random_step(rng, sizes[w], sizes[w + 1], survival));
      steps.set(w, plain.back());
      CHECK(steps.objects(w) == sizes[w]);
    }
    // The plain composition, as compose_identity did it before the maps were coded.
    for (size_t w = plain.size() - 1; w-- > 0;)
      for (uint32_t& x : plain[w])
        if (x != leaks::kNoBirth) x = plain[w + 1][x];
    std::vector<uint32_t> later;
    for (size_t w = plain.size(); w-- > 0;) {
      later = steps.compose(w, later);
      REQUIRE(later == plain[w]);
      steps.clear(w);
      CHECK(steps.objects(w) == 0);
    }
  }
  // The last walk's map alone: survivors in order code as one byte an object.
  leaks::IdentitySteps steps;
  steps.reset(2);
  std::vector<uint32_t> in_order(100000);
  for (uint32_t i = 0; i < in_order.size(); ++i) in_order[i] = i % 3 == 0 ? leaks::kNoBirth : i;
  steps.set(0, in_order);
  CHECK(steps.coded_bytes() <= in_order.size() + 16);
  CHECK(steps.compose(0, {}) == in_order);
}

}  // namespace gcsnap
