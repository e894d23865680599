// The --on-heap-growth trigger driven with numbers: thresholds, the baseline, the cap on walks,
// and the walker's thread asking for a walk when the GC thread says one is due.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "heap_growth.hpp"

using namespace gcsnap;
using namespace gcsnap::shim;

namespace {
constexpr uint64_t kMiB = 1 << 20;
}

TEST_CASE("heap growth: the old generations are gen2, LOH and POH", "[shim][heap_growth]") {
  std::vector<GenerationRange> bounds = {{Generation::Gen0, 0, 100, 0},
                                         {Generation::Gen1, 0, 200, 0},
                                         {Generation::Gen2, 0, 1000, 0},
                                         {Generation::LargeObjectHeap, 0, 2000, 0},
                                         {Generation::PinnedObjectHeap, 0, 30, 0},
                                         {Generation::Gen2, 0, 5, 0}};
  CHECK(HeapGrowthTrigger::old_generation_bytes(bounds) == 3035);
  CHECK(HeapGrowthTrigger::old_generation_bytes({}) == 0);
}

TEST_CASE("heap growth: a walk at each step of growth since the first GC", "[shim][heap_growth]") {
  HeapGrowthTrigger t(10 * kMiB, UINT64_MAX);
  CHECK_FALSE(t.observe(50 * kMiB));  // the baseline
  CHECK(t.baseline() == 50 * kMiB);
  CHECK_FALSE(t.observe(59 * kMiB));
  CHECK(t.observe(61 * kMiB));         // grew by 11 MiB: the first step
  CHECK(t.threshold() == 10 * kMiB);
  CHECK_FALSE(t.observe(75 * kMiB));  // a walk is pending: not asked twice
  t.walk_done(true, 58 * kMiB);        // the walk's full GC freed some: the next step is from the request
  CHECK(t.threshold() == 20 * kMiB);
  CHECK_FALSE(t.observe(69 * kMiB));
  CHECK(t.observe(95 * kMiB));         // 45 MiB: one walk, not three
  t.walk_done(true, 95 * kMiB);
  CHECK(t.threshold() == 50 * kMiB);
  CHECK_FALSE(t.observe(40 * kMiB));  // shrinking below the baseline is no growth
  CHECK(t.walks_taken() == 2);
}

TEST_CASE("heap growth: max walks, and a refused walk moves the threshold on", "[shim][heap_growth]") {
  HeapGrowthTrigger t(kMiB, 2);
  CHECK_FALSE(t.observe(0));
  CHECK(t.observe(kMiB));
  t.walk_done(false, kMiB);  // refused (say, the OOM guard): not retried at every GC
  CHECK(t.walks_taken() == 0);
  CHECK_FALSE(t.observe(kMiB + 10));
  CHECK(t.observe(2 * kMiB));
  t.walk_done(true, 2 * kMiB);
  CHECK(t.observe(3 * kMiB));
  t.walk_done(true, 3 * kMiB);
  CHECK_FALSE(t.observe(100 * kMiB));  // two walks taken: no more
}

TEST_CASE("heap growth: the walker's thread asks for the walk off the GC thread", "[shim][heap_growth]") {
  std::atomic<int> asked{0};
  std::atomic<std::thread::id> asked_on{};
  HeapGrowthWalker walker(kMiB, UINT64_MAX, [&] {
    asked_on.store(std::this_thread::get_id());
    return "ok " + std::to_string(++asked);
  });
  std::vector<GenerationRange> small = {{Generation::Gen2, 0, kMiB, 0}};
  std::vector<GenerationRange> grown = {{Generation::Gen2, 0, kMiB, 0}, {Generation::LargeObjectHeap, 0, 2 * kMiB, 0}};
  walker.on_gc_finished(small);
  walker.on_gc_finished(small);
  walker.on_gc_finished(grown);
  for (int i = 0; i < 200 && walker.walks_taken() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  walker.stop();
  CHECK(asked.load() == 1);
  CHECK(walker.walks_taken() == 1);
  CHECK(asked_on.load() != std::this_thread::get_id());
}
