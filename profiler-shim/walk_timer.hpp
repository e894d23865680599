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
  /// A GC that walks the heap has started: the next object starts the clock. The time from
  /// here to the first object (the GC's mark, plan and compact phases) is on the line too.
  void arm() noexcept;
  /// Called for every object of the walk; reads the clocks on the first one only.
  void on_object() noexcept {
    if (armed_) [[unlikely]] start();
    ++objects_;
  }
  /// The GC finished: the line for the walk ("" when no object was walked), and disarm.
  /// SIZE_QUERIES: the recorder's GetObjectSize2 calls so far; TYPES_NAMED and NAMING_NS: the
  /// classes it named at first sight so far and the time that took (the line gives this walk's).
  std::string finish(uint64_t size_queries, uint64_t types_named, uint64_t naming_ns);

 private:
  void start() noexcept;

  bool armed_ = false;
  bool started_ = false;
  uint64_t walks_ = 0;
  uint64_t objects_ = 0;
  uint64_t wall_ns_ = 0, cpu_ns_ = 0, minor_faults_ = 0;
  uint64_t gc_wall_ns_ = 0, gc_cpu_ns_ = 0;  ///< at arm(); then the GC's time before the walk
  uint64_t size_queries_ = 0;  ///< the recorder's counts at the end of the last walk
  uint64_t types_named_ = 0, naming_ns_ = 0;
};

}  // namespace gcsnap::shim
