// Measures the figures quoted in format-spec.md §5 and §11: bits per value of each column
// encoding, bytes per object on disk, writer throughput, open and decode time.
// Usage: encoding_measure [objects=4000000] [path=/tmp/gcsnap-measure.snap]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <zstd.h>

#include <gcsnap/gcsnap.hpp>

#include "format/column_codec.hpp"

namespace {

using Clock = std::chrono::steady_clock;
// CPU time of the whole process: on a shared, loaded machine wall time mostly measures the
// neighbours, so rates are given per CPU second as well.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Synthetic .NET-like heap (the shape of a server GC's regions): 4 MiB regions of ~40 000 objects, sizes with
// 24-byte minimum and 8-byte granularity, 2.5 references per object, 90 % to nearby objects.
struct Heap {
  std::vector<uint64_t> addresses, sizes, targets;
  std::vector<uint32_t> type_ids, counts;
  std::vector<uint8_t> generations;
};

Heap make_heap(size_t n) {
  std::mt19937_64 rng(42);
  Heap h;
  uint64_t region = 0x7f0000000000ull, cursor = region;
  for (size_t i = 0; i < n; ++i) {
    if (i % 40000 == 0) cursor = region = std::max(region + (4ull << 20) * (1 + rng() % 3), (cursor + (4ull << 20)) & ~((4ull << 20) - 1));
    unsigned r = static_cast<unsigned>(rng() % 100);
    uint64_t size = r < 30 ? 24 : r < 50 ? 32 : r < 62 ? 40 : r < 87 ? 48 + 8 * (rng() % 11)
                    : r < 99 ? 136 + 8 * (rng() % 112) : 1024 + 8 * (rng() % 3000);
    h.addresses.push_back(cursor);
    h.sizes.push_back(size);
    cursor += size;
    h.type_ids.push_back(static_cast<uint32_t>(rng() % 100 < 80 ? 1 + rng() % 50 : 1 + rng() % 3000));
    h.generations.push_back(static_cast<uint8_t>(i < n / 2 ? 2 : rng() % 2));
  }
  for (size_t i = 0; i < n; ++i) {
    uint32_t c = static_cast<uint32_t>(rng() % 6);  // mean 2.5
    h.counts.push_back(c);
    for (uint32_t k = 0; k < c; ++k) {
      size_t t = rng() % 10 == 0 ? rng() % n : std::min(n - 1, i + 1 + rng() % 16);
      h.targets.push_back(h.addresses[t]);
    }
  }
  return h;
}

size_t zstd1(const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> out(ZSTD_compressBound(bytes.size()));
  return ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 1);
}

template <typename T>
std::vector<uint8_t> raw_bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t k = 0; k < sizeof(T); ++k) b[i * sizeof(T) + k] = static_cast<uint8_t>(v[i] >> (8 * k));
  return b;
}

void report(const char* what, size_t bytes, size_t values) {
  std::printf("  %-46s %8.2f bits/value\n", what, 8.0 * static_cast<double>(bytes) / static_cast<double>(values));
}

void measure_columns(const Heap& h) {
  using namespace gcsnap::format;
  const size_t n = h.addresses.size();
  std::printf("columns (%zu objects, %zu references), zstd level 1:\n", n, h.targets.size());
  report("addresses raw u64 -> zstd", zstd1(raw_bytes(h.addresses)), n);
  std::vector<uint8_t> col;
  encode_delta_column(h.addresses, col);
  report("addresses delta/8 LEB128 (no zstd)", col.size(), n);
  report("addresses delta/8 LEB128 -> zstd", zstd1(col), n);
  std::vector<uint64_t> unaligned = h.addresses;
  unaligned[n / 2] += 1;
  col.clear();
  encode_delta_column(unaligned, col);
  report("addresses delta LEB128 -> zstd (one unaligned)", zstd1(col), n);
  col.clear();
  encode_varint_column(std::span<const uint64_t>(h.sizes), col);
  report("sizes /8 LEB128 -> zstd", zstd1(col), n);
  col.clear();
  encode_varint_column(std::span<const uint32_t>(h.type_ids), col);
  report("type ids LEB128 -> zstd", zstd1(col), n);
  report("generations u8 -> zstd", zstd1(h.generations), n);
  col.clear();
  encode_varint_column(std::span<const uint32_t>(h.counts), col);
  report("reference counts LEB128 -> zstd", zstd1(col), n);
  report("edges raw u64 target -> zstd", zstd1(raw_bytes(h.targets)), h.targets.size());
  col.clear();
  encode_delta_column(h.targets, col);
  report("edges zigzag(target - previous target) -> zstd", zstd1(col), h.targets.size());
  col.clear();
  encode_edge_column(h.addresses, h.counts, h.targets, col);
  report("edges zigzag(target - source)/8 LEB128 -> zstd", zstd1(col), h.targets.size());
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4000000;
  const std::string path = argc > 2 ? argv[2] : "/tmp/gcsnap-measure.snap";
  const std::string mode = argc > 3 ? argv[3] : "all";  // all | write | read
  const bool only_write = mode == "write";
  Heap h = make_heap(n);
  if (mode == "all") measure_columns(h);
  for (bool background : {false, true}) {
    if (background && mode == "read") break;
    gcsnap::WriterOptions options;
    options.background_compression = background;
    auto t0 = Clock::now();
    const double c0 = cpu_seconds();
    auto w = gcsnap::Writer::create(path, options);
    if (!w) return 1;
    gcsnap::GcInfo info;
    info.gc_number = 1;
    info.trigger = gcsnap::SnapshotTrigger::Policy;
    if (!(*w)->begin_gc(info)) return 1;
    const size_t batch = 65536;
    size_t ref = 0;
    for (size_t i = 0; i < n; i += batch) {
      size_t k = std::min(batch, n - i), refs = 0;
      for (size_t j = i; j < i + k; ++j) refs += h.counts[j];
      if (!(*w)->add_objects({&h.addresses[i], k}, {&h.type_ids[i], k}, {&h.sizes[i], k}, {&h.generations[i], k},
                             {&h.counts[i], k}, {h.targets.data() + ref, refs}))
        return 1;
      ref += refs;
    }
    if (!(*w)->end_gc(info) || !(*w)->close()) return 1;
    double secs = seconds_since(t0), cpu = cpu_seconds() - c0;
    auto stats = (*w)->stats();
    std::printf("writer (%s): %.1f M objects/s wall, %.1f M objects per CPU second; %.2f bytes/object on disk "
                "(references included)\n",
                background ? "background thread" : "foreground", static_cast<double>(n) / secs / 1e6,
                static_cast<double>(n) / cpu / 1e6, static_cast<double>(stats.bytes_written) / static_cast<double>(n));
  }
  if (only_write) return 0;
  auto t1 = Clock::now();
  auto rec = gcsnap::Recording::open(path);
  double open_ms = seconds_since(t1) * 1e3;
  if (!rec) {
    std::printf("open failed: %s %s\n", gcsnap::error_code_name(rec.error().code).data(), rec.error().detail);
    return 1;
  }
  auto t2 = Clock::now();
  const double c2 = cpu_seconds();
  auto objects = (*rec)->read_objects(0);
  double decode_s = seconds_since(t2), decode_cpu = cpu_seconds() - c2;
  if (!objects) {
    std::printf("read_objects failed: %s %s\n", gcsnap::error_code_name(objects.error().code).data(),
                objects.error().detail);
    return 1;
  }
  std::printf("open: %.3f ms; read_objects: %.3f s wall, %.3f s CPU for %zu objects + %zu references\n", open_ms,
              decode_s, decode_cpu, n, objects->reference_targets.size());
  std::remove(path.c_str());
  return 0;
}
