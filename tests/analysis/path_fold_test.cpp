// Folding repeated hops (path_fold.hpp): the kept keys are collapse_repeats', the counts say
// how many hops each kept key stands for, checked against sequences built from known runs.
#include <catch2/catch.hpp>

#include <numeric>
#include <random>
#include <vector>

#include "gcsnap/leak_suspects.hpp"
#include "gcsnap/path_fold.hpp"

namespace gcsnap {

TEST_CASE("fold_repeats counts the hops of each kept key", "[fold]") {
  using V = std::vector<uint32_t>;
  using C = std::vector<uint64_t>;
  auto f = fold_repeats(V{1, 2, 2, 2, 2, 3}).value();
  CHECK(f.keys == V{1, 2, 3});
  CHECK(f.counts == C{1, 4, 1});
  CHECK(f.first == std::vector<size_t>{0, 1, 5});
  f = fold_repeats(V{1, 2, 3, 2, 3, 2, 3}).value();
  CHECK(f.keys == V{1, 2, 3});
  CHECK(f.counts == C{1, 3, 3});
  f = fold_repeats(V{1, 2, 3, 2, 3, 2, 4}).value();
  CHECK(f.keys == V{1, 2, 3, 2, 4});
  CHECK(f.counts == C{1, 2, 2, 1, 1});  // 1 (2 3)x2 2 4
  f = fold_repeats(V{7, 7, 7}, 0).value();
  CHECK(f.keys == V{7, 7, 7});
  CHECK(fold_repeats(V{}).value().size() == 0);
}

TEST_CASE("fold_repeats keeps collapse_repeats' keys and every hop counted", "[fold]") {
  std::mt19937 rng(11);
  for (int n = 0; n < 3000; ++n) {
    std::vector<uint32_t> keys(rng() % 16);
    for (auto& k : keys) k = static_cast<uint32_t>(rng() % 3);
    const auto folded = fold_repeats(keys).value();
    REQUIRE(folded.keys == collapse_repeats(keys).value());
    REQUIRE(std::accumulate(folded.counts.begin(), folded.counts.end(), uint64_t{0}) == keys.size());
    for (size_t k = 0; k < folded.size(); ++k) {
      REQUIRE(folded.first[k] < keys.size());
      REQUIRE(keys[folded.first[k]] == folded.keys[k]);
      if (k > 0) REQUIRE(folded.first[k] > folded.first[k - 1]);
    }
  }
}

// Oracle: a path made of runs (a block of 1-4 distinct keys repeated R times, separated by a
// key of its own) folds to one copy of each block, every key of it counted R times.
TEST_CASE("fold_repeats folds known runs to their repeat counts", "[fold]") {
  std::mt19937 rng(5);
  for (int n = 0; n < 500; ++n) {
    std::vector<uint32_t> keys, want_keys;
    std::vector<uint64_t> want_counts;
    uint32_t next = 100;
    const size_t runs = 1 + rng() % 4;
    for (size_t r = 0; r < runs; ++r) {
      keys.push_back(next);
      want_keys.push_back(next);
      want_counts.push_back(1);
      ++next;
      const size_t period = 1 + rng() % 4, repeats = 1 + rng() % 50;
      std::vector<uint32_t> block(period);
      for (auto& b : block) b = next++;
      for (size_t i = 0; i < repeats; ++i) keys.insert(keys.end(), block.begin(), block.end());
      want_keys.insert(want_keys.end(), block.begin(), block.end());
      want_counts.insert(want_counts.end(), period, repeats);
    }
    const auto folded = fold_repeats(keys).value();
    REQUIRE(folded.keys == want_keys);
    REQUIRE(folded.counts == want_counts);
  }
}

}  // namespace gcsnap
