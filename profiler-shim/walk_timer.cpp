#include "walk_timer.hpp"

#include <sys/resource.h>
#include <time.h>

#include <cstdio>

namespace gcsnap::shim {
namespace {

struct Clocks {
  uint64_t wall_ns = 0, cpu_ns = 0, minor_faults = 0;
};

Clocks read_clocks() noexcept {
  Clocks c;
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  c.wall_ns = uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  c.cpu_ns = uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
  rusage usage{};
  if (::getrusage(RUSAGE_THREAD, &usage) == 0) c.minor_faults = uint64_t(usage.ru_minflt);
  return c;
}

}  // namespace

void WalkTimer::start() noexcept {
  armed_ = false;
  started_ = true;
  objects_ = 0;
  Clocks c = read_clocks();
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
  Clocks c = read_clocks();
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
