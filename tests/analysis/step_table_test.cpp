// StepTable (analysis/step_table.hpp), the shape trie's lookup map: the same answers as
// std::unordered_map through growth, with colliding and neighbouring keys, and after release().
#include <catch2/catch.hpp>

#include <random>
#include <unordered_map>

#include "analysis/step_table.hpp"

namespace gcsnap {

TEST_CASE("StepTable: finds and inserts as std::unordered_map does", "[leaks]") {
  std::mt19937_64 rng(45);
  leaks::StepTable table;
  std::unordered_map<uint64_t, uint32_t> want;
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      table.release();
      want.clear();
      CHECK(table.size() == 0);
      table.reserve(1000);
    }
    for (uint32_t i = 0; i < 50000; ++i) {
      // Few parents, few labels: many keys alike in their low bits, and repeats.
      const uint64_t key = (rng() % 3000) << 32 | (rng() % 40);
      const auto [value, inserted] = table.try_emplace(key, i);
      const auto [it, want_inserted] = want.try_emplace(key, i);
      REQUIRE(inserted == want_inserted);
      REQUIRE(*value == it->second);
      if (i % 7 == 0) *value = it->second = i + 1;  // written through the pointer
      table.prefetch(key);
    }
    CHECK(table.size() == want.size());
    CHECK(want.size() > 30000);  // most keys were new: the table grew many times
    for (const auto& [key, value] : want) CHECK(*table.try_emplace(key, 0).first == value);
  }
}

}  // namespace gcsnap
