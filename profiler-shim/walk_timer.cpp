#include "walk_timer.hpp"

#include <cstdio>

#include "shim_os.hpp"

namespace gcsnap::shim {

void WalkTimer::arm() noexcept {
  armed_ = true;
  started_ = false;
  os::ThreadClocks c = os::read_thread_clocks();
  gc_wall_ns_ = c.wall_ns;
  gc_cpu_ns_ = c.cpu_ns;
}

void WalkTimer::start() noexcept {
  armed_ = false;
  started_ = true;
  objects_ = 0;
  os::ThreadClocks c = os::read_thread_clocks();
  wall_ns_ = c.wall_ns;
  cpu_ns_ = c.cpu_ns;
  minor_faults_ = c.minor_faults;
  // The GC before the walk: on the same thread when it is the one that started the GC (a
  // forced GC, workstation GC); its CPU figure means nothing otherwise.
  gc_wall_ns_ = wall_ns_ - gc_wall_ns_;
  gc_cpu_ns_ = cpu_ns_ - gc_cpu_ns_;
}

std::string WalkTimer::finish(uint64_t size_queries, uint64_t types_named, uint64_t naming_ns) {
  armed_ = false;
  const uint64_t walk_queries = size_queries - size_queries_;
  const uint64_t walk_types = types_named - types_named_;
  const uint64_t walk_naming_ns = naming_ns - naming_ns_;
  size_queries_ = size_queries;
  types_named_ = types_named;
  naming_ns_ = naming_ns;
  if (!started_) return {};
  started_ = false;
  os::ThreadClocks c = os::read_thread_clocks();
  char line[360];
  std::snprintf(line, sizeof(line),
                "heap walk %llu: %llu objects, %.1f ms wall, %.1f ms CPU, %llu page faults, %llu size queries, "
                "%llu types named in %.1f ms; the GC before it %.1f ms wall, %.1f ms CPU",
                static_cast<unsigned long long>(++walks_), static_cast<unsigned long long>(objects_),
                double(c.wall_ns - wall_ns_) / 1e6, double(c.cpu_ns - cpu_ns_) / 1e6,
                static_cast<unsigned long long>(c.minor_faults - minor_faults_),
                static_cast<unsigned long long>(walk_queries), static_cast<unsigned long long>(walk_types),
                double(walk_naming_ns) / 1e6, double(gc_wall_ns_) / 1e6, double(gc_cpu_ns_) / 1e6);
  return line;
}

}  // namespace gcsnap::shim
