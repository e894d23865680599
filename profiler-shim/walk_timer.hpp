#pragma once
// GCSNAP_WALK_TIMES=1, for measuring the snapshot pause: the heap walk's own cost on the thread
// that walks (first object to GarbageCollectionFinished), apart from the GC's mark and compact
// phases, which vary from one GC to the next by more than the shim costs. CPU time and page
// faults are the thread's own (getrusage(RUSAGE_THREAD)), so that a busy machine, which makes
// the thread wait for a CPU, changes the wall time but not them. One stderr line per walk.

#include <cstdint>
#include <string>

namespace gcsnap::shim {

class WalkTimer {
 public:
  /// A GC that walks the heap has started: the next object starts the clock.
  void arm() noexcept { armed_ = true; started_ = false; }
  /// Called for every object of the walk; reads the clocks on the first one only.
  void on_object() noexcept {
    if (armed_) [[unlikely]] start();
    ++objects_;
  }
  /// The GC finished: the line for the walk ("" when no object was walked), and disarm.
  /// SIZE_QUERIES: the recorder's GetObjectSize2 calls so far (the line gives this walk's).
  std::string finish(uint64_t size_queries);

 private:
  void start() noexcept;

  bool armed_ = false;
  bool started_ = false;
  uint64_t walks_ = 0;
  uint64_t objects_ = 0;
  uint64_t wall_ns_ = 0, cpu_ns_ = 0, minor_faults_ = 0;
  uint64_t size_queries_ = 0;  ///< the recorder's count at the end of the last walk
};

}  // namespace gcsnap::shim
