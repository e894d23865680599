// graph_bench: time the heap-graph analyses on a synthetic heap and print the figures.
//   graph_bench [OBJECTS=1000000] [RANDOM_EDGE_SHARE=0.10]
// The generator follows the out-degrees measured on .NET heaps: out-degree 0 (30 %), 1 (25 %),
// 2 (20 %), 3-5 (15 %), 6-16 (9 %), 20-199 (1 %); each edge points to one of the next 64
// objects, or with probability p to a random one; roots are the first 1000 objects plus
// N/1000 random ones. No timed assertions: this only prints.

#include <sys/resource.h>

#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "gcsnap/dominators.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/type_histogram.hpp"

using namespace gcsnap;

namespace {

// Thread CPU time, not wall time: the machine is shared, and a busy neighbour would
// otherwise halve the figures. Cache contention still shows.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double seconds_since(double start) { return cpu_seconds() - start; }

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

int out_degree(std::mt19937_64& rng) {
  const unsigned r = static_cast<unsigned>(rng() % 100);
  if (r < 30) return 0;
  if (r < 55) return 1;
  if (r < 75) return 2;
  if (r < 90) return 3 + static_cast<int>(rng() % 3);
  if (r < 99) return 6 + static_cast<int>(rng() % 11);
  return 20 + static_cast<int>(rng() % 180);
}

void generate(size_t n, double p, ObjectTable& objects, RootTable& roots) {
  std::mt19937_64 rng(42);
  uint64_t address = 0x7f0000000000;
  objects.addresses.reserve(n);
  objects.sizes.reserve(n);
  objects.type_ids.reserve(n);
  objects.generations.reserve(n);
  objects.reference_offsets.reserve(n + 1);
  objects.reference_offsets.push_back(0);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t size = 24 + 8 * (rng() % 22);
    objects.addresses.push_back(address);
    objects.sizes.push_back(size);
    objects.type_ids.push_back(1 + static_cast<uint32_t>(rng() % 2000));
    objects.generations.push_back(Generation::Gen2);
    address += size;
  }
  std::uniform_real_distribution<double> unit(0, 1);
  for (size_t i = 0; i < n; ++i) {
    const int d = out_degree(rng);
    for (int k = 0; k < d; ++k) {
      const size_t t = unit(rng) < p ? rng() % n : std::min(n - 1, i + 1 + rng() % 64);
      objects.reference_targets.push_back(objects.addresses[t]);
    }
    objects.reference_offsets.push_back(objects.reference_targets.size());
  }
  auto add_root = [&](size_t node) {
    roots.object_ids.push_back(objects.addresses[node]);
    roots.kinds.push_back(RootKind::Handle);
    roots.flags.push_back(0);
    roots.root_ids.push_back(node);
  };
  for (size_t i = 0; i < std::min<size_t>(1000, n); ++i) add_root(i);
  for (size_t i = 0; i < n / 1000; ++i) add_root(rng() % n);
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  const double p = argc > 2 ? std::strtod(argv[2], nullptr) : 0.10;
  ObjectTable objects;
  RootTable roots;
  generate(n, p, objects, roots);
  const double input_mb = peak_rss_mb();
  const double edges = static_cast<double>(objects.reference_targets.size());
  std::printf("graph_bench (thread CPU seconds): %zu objects, %.0f references (p = %.2f), %zu roots\n", n, edges, p, roots.size());

  double t0 = cpu_seconds();
  auto graph = HeapGraph::build(objects, roots);
  const double build_s = seconds_since(t0);
  if (!graph) return 1;
  objects.release_references();
  t0 = cpu_seconds();
  if (!graph->build_reverse()) return 1;
  const double reverse_s = seconds_since(t0);
  t0 = cpu_seconds();
  auto tree = ShortestPathTree::compute(*graph, RetentionOptions{});
  const double bfs_s = seconds_since(t0);
  if (!tree) return 1;
  t0 = cpu_seconds();
  auto path = find_retention_paths(*graph, static_cast<NodeIndex>(n - 1), RetentionOptions{});
  const double path_s = seconds_since(t0);
  if (!path) return 1;
  const size_t reached = tree->reached_count();
  const size_t hops = path->paths.empty() ? size_t{0} : path->paths[0].hops();
  tree = make_error(ErrorCode::InvalidState, "released");  // free the BFS state first, as the CLI would
  t0 = cpu_seconds();
  auto dom = DominatorTree::compute(*graph);
  const double dom_s = seconds_since(t0);
  if (!dom) return 1;
  t0 = cpu_seconds();
  auto hist = build_type_histogram(*graph, &*dom, TypeHistogramOptions{TypeOrder::RetainedBytes, 10});
  const double hist_s = seconds_since(t0);
  if (!hist) return 1;

  const double medges = edges / 1e6;
  std::printf("build (resolve + forward CSR) %7.3f s  %6.1f M edges/s\n", build_s, medges / build_s);
  std::printf("reverse CSR                   %7.3f s  %6.1f M edges/s\n", reverse_s, medges / reverse_s);
  std::printf("BFS from all roots (full)     %7.3f s  %6.1f M edges/s  (%zu reached)\n", bfs_s,
              static_cast<double>(graph->edge_count()) / 1e6 / bfs_s, reached);
  std::printf("one path (early-exit BFS)     %7.3f s  (%zu hops)\n", path_s, hops);
  std::printf("dominators + retained sizes   %7.3f s  %6.2f M nodes/s  (%zu reachable)\n", dom_s,
              static_cast<double>(dom->reachable_count()) / 1e6 / dom_s, dom->reachable_count());
  std::printf("type histogram (retained)     %7.3f s\n", hist_s);
  const double peak = peak_rss_mb();
  std::printf("peak RSS %.0f MB = %.0f B/object (input tables alone %.0f MB; analyses added %.0f B/object)\n", peak,
              peak * 1e6 / static_cast<double>(n), input_mb, (peak - input_mb) * 1e6 / static_cast<double>(n));
  return 0;
}
