#pragma once
// `record --on-heap-growth SIZE` (GCSNAP_ON_HEAP_GROWTH): a heap walk when the old generations
// (gen2 + LOH + POH bytes in use) have grown by SIZE since the recording's first GC, and again
// each time they have grown by SIZE more. The shim decides at the end of each GC from the
// generation bounds it already has (one pass over them: near zero per GC) and its own thread
// asks for the walk with an induced full GC (docs/cli.md "Unattended recording"). Plain C++:
// tests drive it with numbers.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include "gcsnap/model.hpp"

namespace gcsnap::shim {

class HeapGrowthTrigger {
 public:
  /// STEP_BYTES > 0; at most MAX_WALKS walks are asked for.
  HeapGrowthTrigger(uint64_t step_bytes, uint64_t max_walks) noexcept : step_(step_bytes), max_walks_(max_walks) {}

  /// Bytes in use of the old generations (gen2, LOH, POH) in BOUNDS.
  static uint64_t old_generation_bytes(std::span<const GenerationRange> bounds) noexcept;

  /// After a GC whose old generations hold OLD_BYTES: true when a walk is due now (the growth
  /// since the first GC reached the next threshold and no walk is pending).
  bool observe(uint64_t old_bytes) noexcept;
  /// The walk asked for by observe() ended (taken or not) with the old generations at
  /// OLD_BYTES: the next threshold is the next multiple of the step above that growth.
  void walk_done(bool taken, uint64_t old_bytes) noexcept;

  uint64_t baseline() const noexcept { return baseline_; }
  /// Growth the pending (or last) walk was asked for at, and the threshold it crossed.
  uint64_t growth_at_request() const noexcept { return growth_at_request_; }
  uint64_t threshold() const noexcept { return threshold_; }
  uint64_t walks_taken() const noexcept { return taken_; }

 private:
  uint64_t growth(uint64_t old_bytes) const noexcept { return old_bytes > baseline_ ? old_bytes - baseline_ : 0; }

  uint64_t step_, max_walks_;
  bool has_baseline_ = false;
  bool pending_ = false;
  uint64_t baseline_ = 0;
  uint64_t threshold_ = 0;  ///< growth at which the next walk is due
  uint64_t growth_at_request_ = 0;
  uint64_t taken_ = 0;
};

/// The trigger and the thread of the shim's own that asks for its walks: the GC thread only
/// sums the bounds and, when a walk is due, wakes the thread (a GC callback may not induce a GC).
class HeapGrowthWalker {
 public:
  /// WALK asks for one heap walk now and returns the control reply ("ok GC" when taken);
  /// it runs on the walker's thread.
  using WalkFunction = std::function<std::string()>;
  HeapGrowthWalker(uint64_t step_bytes, uint64_t max_walks, WalkFunction walk);
  ~HeapGrowthWalker() { stop(); }
  HeapGrowthWalker(const HeapGrowthWalker&) = delete;
  HeapGrowthWalker& operator=(const HeapGrowthWalker&) = delete;

  /// After each GC, on the GC's thread: one pass over BOUNDS and a lock held for a few
  /// instructions. Never blocks on the walk.
  void on_gc_finished(std::span<const GenerationRange> bounds) noexcept;
  /// End the thread (waiting for a walk under way to return). Idempotent.
  void stop() noexcept;
  uint64_t walks_taken();

 private:
  void run() noexcept;

  HeapGrowthTrigger trigger_;
  WalkFunction walk_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool due_ = false, stopping_ = false;
  uint64_t last_old_bytes_ = 0;
  std::thread thread_;
};

}  // namespace gcsnap::shim
