#include "walk_timer.hpp"

#include <cstdio>

#include "shim_os.hpp"

namespace gcsnap::shim {

void WalkTimer::start() noexcept {
  armed_ = false;
  started_ = true;
  objects_ = 0;
  os::ThreadClocks c = os::read_thread_clocks();
  wall_ns_ = c.wall_ns;
  cpu_ns_ = c.cpu_ns;
  minor_faults_ = c.minor_faults;
}

std::string WalkTimer::finish(uint64_t size_queries) {
  armed_ = false;
  const uint64_t walk_queries = size_queries - size_queries_;
  size_queries_ = size_queries;
  if (!started_) return {};
  started_ = false;
  os::ThreadClocks c = os::read_thread_clocks();
  char line[240];
  std::snprintf(line, sizeof(line),
                "heap walk %llu: %llu objects, %.1f ms wall, %.1f ms CPU, %llu page faults, %llu size queries",
                static_cast<unsigned long long>(++walks_), static_cast<unsigned long long>(objects_),
                double(c.wall_ns - wall_ns_) / 1e6, double(c.cpu_ns - cpu_ns_) / 1e6,
                static_cast<unsigned long long>(c.minor_faults - minor_faults_),
                static_cast<unsigned long long>(walk_queries));
  return line;
}

}  // namespace gcsnap::shim
