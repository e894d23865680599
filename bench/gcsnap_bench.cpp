// gcsnap_bench: end-to-end figures (docs/performance.md) on synthetic recordings (synth_heap.hpp).
// Each subcommand prints `key value` lines; bench/run.sh runs them 3 times and tabulates the
// medians. No timed assertions anywhere.
//
//   gcsnap_bench write N FILE fg|bg   generate GC 1 (N objects) and GC 2 (~0.98 N), write both;
//                                     time the write of GC 2 (wall and process CPU)
//   gcsnap_bench read FILE            open time, bytes/object, decode GC 2's objects+references
//   gcsnap_bench analyse FILE         load GC 2, graph, one retention path, dominators; peak RSS
//   gcsnap_bench diff FILE            object-level diff GC 1 -> GC 2; peak RSS
//   gcsnap_bench series WALKS N FILE [LEAK]  WALKS heap walks of about N objects with churn and a
//                                     planted leak of LEAK objects per walk (default N/1000),
//                                     written walk by walk (synth_heap.hpp write_series); peak RSS
//   gcsnap_bench smoke DIR            tiny round trip through the writer and reader (exit 1 on mismatch)
//   gcsnap_bench gctime FILE          a real app's recording: GCs, and the sum over them of
//                                     GarbageCollectionStarted -> Finished (the heap walk included)

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <gcsnap/dominators.hpp>
#include <gcsnap/gcsnap.hpp>
#include <gcsnap/heap_graph.hpp>
#include <gcsnap/object_diff.hpp>
#include <gcsnap/object_identity.hpp>
#include <gcsnap/retention.hpp>

#include "synth_heap.hpp"

using namespace gcsnap;

namespace {

using Clock = std::chrono::steady_clock;

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Timer {
  Clock::time_point w = Clock::now();
  double c = cpu_now();
  double wall() const { return std::chrono::duration<double>(Clock::now() - w).count(); }
  double cpu() const { return cpu_now() - c; }
};

double current_rss_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

[[noreturn]] void die(const char* what, const Error& e) {
  std::fprintf(stderr, "gcsnap_bench: %s: %s (%s) at %llu errno %d\n", what, std::string(error_code_name(e.code)).c_str(),
               e.detail, static_cast<unsigned long long>(e.offset), e.sys_errno);
  std::exit(2);
}

void kv(const char* key, double value) { std::printf("%s %.6g\n", key, value); }

std::unique_ptr<Recording> open_or_die(const std::string& path) {
  auto rec = Recording::open(path);
  if (!rec) die("open", rec.error());
  if (rec.value()->gcs().size() < 2) {
    std::fprintf(stderr, "gcsnap_bench: %s: expected two GCs\n", path.c_str());
    std::exit(2);
  }
  return std::move(rec).value();
}

int cmd_write(size_t n, const std::string& path, bool background) {
  Timer gen;
  const synth::Recording r = synth::generate(n);
  std::fprintf(stderr, "generated %zu + %zu objects in %.1f s\n", r.a.size(), r.b.size(), gen.wall());
  WriterOptions opt;
  opt.background_compression = background;
  // Experiments: zstd level and chunk size other than the defaults.
  if (const char* level = std::getenv("GCSNAP_BENCH_LEVEL")) opt.compression_level = std::atoi(level);
  if (const char* chunk = std::getenv("GCSNAP_BENCH_CHUNK")) opt.chunk_items = std::strtoull(chunk, nullptr, 10);
  auto w = Writer::create(path, opt);
  if (!w) die("create", w.error());
  Writer& writer = **w;
  if (Status s = synth::write_gc(writer, r, r.a, 1, true); !s) die("write GC 1", s.error());
  if (Status s = writer.flush(); !s) die("flush", s.error());
  // GCSNAP_BENCH_WRITE_REPS=K writes GC 2 K times (GC 2, 3, ...) and reports the median
  // write by CPU time: less noise on a shared machine, and a long enough window for perf.
  int reps = 1;
  if (const char* k = std::getenv("GCSNAP_BENCH_WRITE_REPS")) reps = std::max(1, std::atoi(k));
  struct One {
    double wall, cpu, end_gc_wall;
    uint64_t raw;
  };
  std::vector<One> runs;
  for (int i = 0; i < reps; ++i) {
    const WriterStats before = writer.stats();
    Timer t;
    if (Status s = synth::write_gc(writer, r, r.b, 2 + static_cast<uint64_t>(i), false); !s) die("write GC 2", s.error());
    const double end_gc = t.wall();
    if (Status s = writer.flush(); !s) die("flush", s.error());
    runs.push_back({t.wall(), t.cpu(), end_gc, writer.stats().raw_bytes - before.raw_bytes});
  }
  std::sort(runs.begin(), runs.end(), [](const One& a, const One& b) { return a.cpu < b.cpu; });
  const One& mid = runs[runs.size() / 2];
  const double wall = mid.wall, cpu = mid.cpu, end_gc_wall = mid.end_gc_wall;
  struct {
    uint64_t raw_bytes;
  } before{0}, after{mid.raw};
  if (Status s = writer.close(); !s) die("close", s.error());
  const double objects = static_cast<double>(r.b.size());
  kv("objects", objects);
  kv("references", static_cast<double>(r.b.references.size()));
  kv("write_wall_s", wall);
  kv("write_cpu_s", cpu);
  kv("write_end_gc_wall_s", end_gc_wall);  // how long the caller is held (bg: until queued)
  kv("write_mobj_per_cpu_s", objects / cpu / 1e6);
  kv("write_mobj_per_wall_s", objects / wall / 1e6);
  kv("write_raw_mb_per_cpu_s", static_cast<double>(after.raw_bytes - before.raw_bytes) / cpu / 1e6);
  kv("write_raw_bytes_per_object", static_cast<double>(after.raw_bytes - before.raw_bytes) / objects);
  return 0;
}

int cmd_read(const std::string& path) {
  std::vector<double> opens;
  for (int k = 0; k < 5; ++k) {
    Timer t;
    auto rec = Recording::open(path);
    opens.push_back(t.wall());
    if (!rec) die("open", rec.error());
  }
  std::sort(opens.begin(), opens.end());
  auto rec = open_or_die(path);
  const GcEntry& e = rec->gcs()[1];
  kv("open_ms", opens[2] * 1e3);
  kv("file_bytes_per_object", static_cast<double>(rec->file_size()) /
                                  static_cast<double>(rec->gcs()[0].object_count + e.object_count));
  kv("gc_bytes_per_object", static_cast<double>(e.block_size) / static_cast<double>(e.object_count));
  kv("gc_bytes_per_reference_incl_objects", static_cast<double>(e.block_size) / static_cast<double>(e.reference_count));
  Timer t;
  auto objects = rec->read_objects(1);
  const double wall = t.wall(), cpu = t.cpu();
  if (!objects) die("read_objects", objects.error());
  kv("decode_objects", static_cast<double>(objects->size()));
  kv("decode_wall_s", wall);
  kv("decode_cpu_s", cpu);
  Timer tr;
  auto roots = rec->read_roots(1);
  if (!roots) die("read_roots", roots.error());
  kv("decode_roots_ms", tr.wall() * 1e3);
  // The same decode on one thread: what one core does (the default uses up to 4).
  *objects = ObjectTable{};
  ReaderOptions one_thread;
  one_thread.object_decode_threads = 1;
  auto rec1 = Recording::open(path, {}, one_thread);
  if (!rec1) die("open", rec1.error());
  Timer t1;
  auto objects1 = (*rec1)->read_objects(1);
  const double wall1 = t1.wall(), cpu1 = t1.cpu();
  if (!objects1) die("read_objects", objects1.error());
  kv("decode1_wall_s", wall1);
  kv("decode1_cpu_s", cpu1);
  return 0;
}

int cmd_analyse(const std::string& path) {
  auto rec = open_or_die(path);
  Timer tl;
  auto objects = rec->read_objects(1);
  if (!objects) die("read_objects", objects.error());
  auto roots = rec->read_roots(1);
  if (!roots) die("read_roots", roots.error());
  const double n = static_cast<double>(objects->size());
  kv("objects", n);
  kv("load_cpu_s", tl.cpu());
  kv("peak_rss_b_per_obj_after_load", peak_rss_bytes() / n);
  kv("rss_b_per_obj_after_load", current_rss_bytes() / n);
  Timer tb;
  auto graph = HeapGraph::build(*objects, *roots);
  if (!graph) die("graph", graph.error());
  objects->release_references();  // as the CLI does (heap_load.cpp)
  kv("graph_build_cpu_s", tb.cpu());
  kv("peak_rss_b_per_obj_after_build", peak_rss_bytes() / n);
  kv("rss_b_per_obj_after_build", current_rss_bytes() / n);
  // The first target for the path figures: the object 3/4 into the heap (an old object, deep in
  // a near-reference chain), or the next reachable one. Without the reverse CSR the path is a
  // forward BFS from the roots (what `gcsnap path ADDRESS` does after loading).
  const auto first_target = static_cast<NodeIndex>(graph->node_count() * 3 / 4);
  {
    Timer tf;
    auto p = find_retention_paths(*graph, first_target, RetentionOptions{});
    if (!p) die("path", p.error());
    kv("path_forward_cpu_ms", tf.cpu() * 1e3);
  }
  Timer trv;
  if (Status s = graph->build_reverse(); !s) die("reverse", s.error());
  kv("graph_reverse_cpu_s", trv.cpu());
  kv("peak_rss_b_per_obj_after_reverse", peak_rss_bytes() / n);
  kv("rss_b_per_obj_after_reverse", current_rss_bytes() / n);
  // With the reverse CSR: one path each for 101 objects spread evenly over the heap, the first
  // being first_target; median and slowest.
  std::vector<double> path_cpu;
  size_t hops = 0;
  for (size_t k = 0; k <= 100; ++k) {
    const size_t start = (first_target + k * (graph->node_count() / 101)) % graph->node_count();
    for (auto target = static_cast<NodeIndex>(start); target < graph->node_count(); ++target) {
      Timer tp;
      auto p = find_retention_paths(*graph, target, RetentionOptions{});
      const double cpu = tp.cpu();
      if (!p) die("path", p.error());
      if (p->paths.empty()) continue;  // unreachable: take the next object
      path_cpu.push_back(cpu);
      if (k == 0) hops = p->paths[0].hops();
      break;
    }
  }
  std::sort(path_cpu.begin(), path_cpu.end());
  kv("path_cpu_ms", path_cpu.empty() ? 0 : path_cpu[path_cpu.size() / 2] * 1e3);
  kv("path_max_cpu_ms", path_cpu.empty() ? 0 : path_cpu.back() * 1e3);
  kv("path_hops", static_cast<double>(hops));
  kv("peak_rss_b_per_obj_after_path", peak_rss_bytes() / n);
  kv("rss_b_per_obj_after_path", current_rss_bytes() / n);
  Timer td;
  auto dom = DominatorTree::compute(*graph);
  if (!dom) die("dominators", dom.error());
  kv("dominators_wall_s", td.wall());
  kv("dominators_cpu_s", td.cpu());
  kv("reachable", static_cast<double>(dom->reachable_count()));
  kv("analysis_peak_rss_bytes_per_object", peak_rss_bytes() / n);
  kv("rss_b_per_obj_after_dominators", current_rss_bytes() / n);
  return 0;
}

int cmd_diff(const std::string& path) {
  auto rec = open_or_die(path);
  auto a = rec->read_objects(0);
  if (!a) die("read_objects A", a.error());
  auto b = rec->read_objects(1);
  if (!b) die("read_objects B", b.error());
  a->release_references();  // the object-level diff needs no references
  b->release_references();
  Timer t;
  auto mapper = map_objects(*rec, 0, 1, a->addresses, a->generations);
  if (!mapper) die("map_objects", mapper.error());
  const double map_cpu = t.cpu();
  auto diff = diff_objects(*a, *b, mapper->addresses(), AliveBits{mapper->alive_bits()});
  if (!diff) die("diff_objects", diff.error());
  kv("diff_wall_s", t.wall());
  kv("diff_cpu_s", t.cpu());
  kv("diff_map_cpu_s", map_cpu);
  kv("diff_surviving", static_cast<double>(diff->surviving_count));
  kv("diff_new", static_cast<double>(diff->new_objects.size()));
  kv("diff_dead", static_cast<double>(diff->dead_objects.size()));
  kv("diff_missing", static_cast<double>(diff->missing_in_b.size()));
  kv("diff_peak_rss_bytes_per_object", peak_rss_bytes() / static_cast<double>(a->size() + b->size()));
  return 0;
}

int cmd_series(size_t walks, size_t n, const std::string& path, size_t leak) {
  Timer t;
  auto w = Writer::create(path, WriterOptions{});
  if (!w) die("create", w.error());
  synth::SeriesOptions opt;
  opt.walks = walks;
  opt.objects = n;
  opt.leak_per_walk = leak;
  if (Status s = synth::write_series(**w, opt); !s) die("write series", s.error());
  if (Status s = (*w)->close(); !s) die("close", s.error());
  kv("series_walks", static_cast<double>(walks));
  kv("series_write_wall_s", t.wall());
  kv("series_peak_rss_bytes", peak_rss_bytes());
  return 0;
}

// Round trip at a tiny size: every column back as written, diff consistent with the generator.
int cmd_smoke(const std::string& dir) {
  const synth::Recording r = synth::generate(3000, 7);
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) { std::printf("FAIL %s\n", what); ++failures; }
  };
  for (bool bg : {false, true}) {
    const std::string path = dir + (bg ? "/smoke-bg.snap" : "/smoke-fg.snap");
    WriterOptions opt;
    opt.background_compression = bg;
    opt.chunk_items = 1000;  // several chunks per column
    auto w = Writer::create(path, opt);
    if (!w) die("create", w.error());
    if (Status s = synth::write_gc(**w, r, r.a, 1, true, 700); !s) die("write GC 1", s.error());
    if (Status s = synth::write_gc(**w, r, r.b, 2, false, 700); !s) die("write GC 2", s.error());
    if (Status s = (*w)->close(); !s) die("close", s.error());
    auto rec = open_or_die(path);
    check(rec->end() == FileEnd::Complete, "file complete");
    for (size_t g = 0; g < 2; ++g) {
      const synth::Walk& walk = g == 0 ? r.a : r.b;
      check(rec->verify_gc(g).is_ok(), "verify_gc");
      auto o = rec->read_objects(g);
      if (!o) die("read_objects", o.error());
      check(o->addresses == walk.addresses, "addresses");
      check(o->sizes == walk.sizes, "sizes");
      check(o->type_ids == walk.type_ids, "type ids");
      check(o->reference_targets == walk.references, "references");
      bool counts = o->reference_offsets.size() == walk.size() + 1;
      for (size_t i = 0; counts && i < walk.size(); ++i)
        counts = o->reference_offsets[i + 1] - o->reference_offsets[i] == walk.reference_counts[i];
      check(counts, "reference counts");
      auto roots = rec->read_roots(g);
      if (!roots) die("read_roots", roots.error());
      check(roots->object_ids == walk.root_objects && roots->root_ids == walk.root_ids, "roots");
    }
    auto a = rec->read_objects(0);
    auto b = rec->read_objects(1);
    if (!a || !b) die("read_objects", (a ? b.error() : a.error()));
    auto mapper = map_objects(*rec, 0, 1, a->addresses, a->generations);
    if (!mapper) die("map_objects", mapper.error());
    auto diff = diff_objects(*a, *b, mapper->addresses(), AliveBits{mapper->alive_bits()});
    if (!diff) die("diff_objects", diff.error());
    // Survivors are exactly B's objects below the first new (gen0) one.
    size_t survivors = 0;
    while (survivors < r.b.size() && r.b.generations[survivors] == 2) ++survivors;
    check(diff->surviving_count == survivors, "diff surviving count");
    check(diff->new_objects.size() == r.b.size() - survivors, "diff new count");
    check(diff->dead_objects.size() == r.a.size() - survivors, "diff dead count");
    check(diff->missing_in_b.empty(), "diff nothing missing");
  }
  std::printf("%s\n", failures == 0 ? "smoke round trip: ok" : "smoke round trip: FAILED");
  return failures == 0 ? 0 : 1;
}

// GetTotalPauseDuration leaves out the profiler's heap walk, which the runtime runs after the
// GC proper (measured: GCSNAP_WALK_ONLY adds wall time but no pause). The recording's own
// timestamps span GarbageCollectionStarted to GarbageCollectionFinished, walk included.
int cmd_gctime(const std::string& path) {
  auto rec = Recording::open(path);
  if (!rec) die("open", rec.error());
  uint64_t total_ns = 0;
  for (const GcEntry& e : (*rec)->gcs())
    if (e.info.end_time_ns > e.info.start_time_ns) total_ns += e.info.end_time_ns - e.info.start_time_ns;
  kv("recorded_gcs", static_cast<double>((*rec)->gcs().size()));
  kv("gc_start_to_finish_ms", static_cast<double>(total_ns) / 1e6);
  return 0;
}

int usage() {
  std::fprintf(stderr, "usage: gcsnap_bench write N FILE fg|bg | series WALKS N FILE [LEAK] | read FILE | analyse FILE | diff FILE | smoke DIR | gctime FILE\n");
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string cmd = argv[1];
  if (cmd == "write" && argc == 5) return cmd_write(std::strtoull(argv[2], nullptr, 10), argv[3], std::strcmp(argv[4], "bg") == 0);
  if (cmd == "read") return cmd_read(argv[2]);
  if (cmd == "analyse") return cmd_analyse(argv[2]);
  if (cmd == "diff") return cmd_diff(argv[2]);
  if (cmd == "smoke") return cmd_smoke(argv[2]);
  if (cmd == "series" && (argc == 5 || argc == 6))
    return cmd_series(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10), argv[4],
                      argc == 6 ? std::strtoull(argv[5], nullptr, 10) : 0);
  if (cmd == "gctime") return cmd_gctime(argv[2]);
  return usage();
}
