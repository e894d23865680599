// Write a recording whose GCs have memory records (format-spec.md §6.16) of one shape, for the
// checks of `info`'s note on native and other memory (docs/cli.md "gcsnap info"):
//   write_memory_fixture FILE SHAPE
//   flat     a small app: 58 MiB native and other at GC 1, +2 MiB by GC 4 (the runtime's own)
//   growth   the same app leaking native memory: +200 MiB of anonymous memory by GC 4
//   large    400 MiB native and other from GC 1 on, +2 MiB by GC 4 (not growing, not small)
//   managed  a managed leak: the managed heap +512 MiB, native and other +40 MiB (the GC's own)
//   single   one GC only: 130 MiB native and other, growth unknown
// GC 1-3 are gen0 GCs without a heap walk; the last GC is an induced gen2 with a walk of two
// byte arrays (its live bytes known), as the shim writes them.
#include <cstdio>
#include <string>

#include "gcsnap/writer.hpp"

using namespace gcsnap;

namespace {

constexpr uint64_t kMiB = 1ull << 20;

struct Shape {
  uint64_t native_start, native_growth, managed_start, managed_growth;
  int gcs;
};

bool shape_of(const std::string& name, Shape& s) {
  if (name == "flat") s = {58 * kMiB, 2 * kMiB, 6 * kMiB, 0, 4};
  else if (name == "growth") s = {58 * kMiB, 200 * kMiB, 6 * kMiB, 0, 4};
  else if (name == "large") s = {400 * kMiB, 2 * kMiB, 6 * kMiB, 0, 4};
  else if (name == "managed") s = {58 * kMiB, 40 * kMiB, 6 * kMiB, 512 * kMiB, 4};
  else if (name == "single") s = {130 * kMiB, 0, 6 * kMiB, 0, 1};
  else return false;
  return true;
}

// GC K's record (0-based): native and managed grow linearly to their last value; the growth of
// native memory is anonymous (native allocations), the rest split as a small app's is.
MemoryAccounting record_at(const Shape& s, int k, bool walked) {
  const uint64_t step = static_cast<uint64_t>(k);
  const uint64_t steps = s.gcs > 1 ? static_cast<uint64_t>(s.gcs - 1) : 1;
  const uint64_t native = s.native_start + s.native_growth * step / steps;
  const uint64_t managed = s.managed_start + s.managed_growth * step / steps;
  MemoryAccounting m;
  m.present = memory_present::kProcess | memory_present::kGcMappings | (walked ? memory_present::kLiveObjects : 0);
  m.sample_delay_ns = 100000;
  m.rss_bytes = native + managed, m.pss_bytes = m.rss_bytes;
  m.gc_committed_bytes = managed + 2 * kMiB, m.gc_resident_bytes = managed, m.gc_in_use_bytes = managed;
  m.code_bytes = 16 * kMiB, m.mapped_file_bytes = 8 * kMiB, m.stack_bytes = kMiB;
  m.anonymous_bytes = native - m.code_bytes - m.mapped_file_bytes - m.stack_bytes;
  m.recorder_bytes = 2 * kMiB;
  m.live_object_bytes = walked ? managed / 2 : 0;
  return m;
}

bool write_gc(Writer& w, const Shape& s, int k) {
  const bool last = k + 1 == s.gcs;
  const uint64_t start = 1700000000000000000ull + static_cast<uint64_t>(k) * 1000000000ull;
  GcInfo gc{static_cast<uint64_t>(k + 1), static_cast<uint8_t>(last ? 0x7u : generation_bit(Generation::Gen0)),
            last ? GcReason::Induced : GcReason::Other, last, last ? SnapshotTrigger::OnDemand : SnapshotTrigger::None,
            start, start + 1000000, static_cast<uint32_t>(k + 1)};
  const MemoryAccounting m = record_at(s, k, last);
  GenerationRange bounds[] = {{Generation::Gen0, 0x7f0000000000, kMiB, 4 * kMiB},
                              {Generation::Gen2, 0x7f0010000000, m.gc_resident_bytes - kMiB, m.gc_resident_bytes}};
  bool ok = w.begin_gc(gc).is_ok() && w.add_generation_bounds(bounds).is_ok();
  if (ok && last) {
    TypeRecord types[] = {{1, 0x7ff100001000, "System.Byte[]", "System.Private.CoreLib.dll"}};
    uint64_t sizes[] = {m.live_object_bytes / 2, m.live_object_bytes / 2};
    uint64_t addresses[] = {0x7f0010000018, 0x7f0010000018 + sizes[0]};
    uint32_t type_ids[] = {1, 1};
    uint8_t gens[] = {2, 2};
    uint32_t counts[] = {0, 0};
    ok = w.add_types(types).is_ok() && w.add_objects(addresses, type_ids, sizes, gens, counts, {}).is_ok();
  }
  return ok && w.add_memory_accounting(m).is_ok() && w.end_gc(gc).is_ok();
}

}  // namespace

int main(int argc, char** argv) {
  Shape shape{};
  if (argc != 3 || !shape_of(argv[2], shape)) {
    std::fprintf(stderr, "usage: write_memory_fixture FILE flat|growth|large|managed|single\n");
    return 2;
  }
  WriterOptions options;
  options.background_compression = false;
  auto created = Writer::create(argv[1], options);
  if (!created) {
    std::fprintf(stderr, "write_memory_fixture: cannot create %s\n", argv[1]);
    return 1;
  }
  for (int k = 0; k < shape.gcs; ++k)
    if (!write_gc(**created, shape, k)) {
      std::fprintf(stderr, "write_memory_fixture: writing GC %d failed\n", k + 1);
      return 1;
    }
  if (!(*created)->close().is_ok()) return 1;
  return 0;
}
