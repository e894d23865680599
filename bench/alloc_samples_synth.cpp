// Writes a synthetic recording with many allocation samples (format-spec.md §6.18), for
// bench/alloc_samples.sh to time `gcsnap allocs` on: SAMPLES samples spread over GCS gen0
// GCs, from 200 stacks of 8 frames and 50 types; at every GC a tenth of the gen0 samples
// survive (a moved range each, into gen1 space), the rest die.
//   alloc_samples_synth FILE SAMPLES GCS
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gcsnap/gcsnap.hpp>

using namespace gcsnap;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: alloc_samples_synth FILE SAMPLES GCS\n");
    return 2;
  }
  const uint64_t samples = std::strtoull(argv[2], nullptr, 10), gcs = std::strtoull(argv[3], nullptr, 10);
  WriterOptions options;
  auto w = Writer::create(argv[1], options);
  if (!w || gcs == 0) return 1;
  Writer& wr = **w;
  const uint64_t per_gc = samples / gcs;
  uint64_t gen1_next = 0x7f1000000000;
  for (uint64_t g = 1; g <= gcs; ++g) {
    GcInfo info{g, generation_bit(Generation::Gen0), GcReason::Other, true, SnapshotTrigger::None,
                1700000000000000000ull + g * 1000000, 1700000000000000000ull + g * 1000000 + 500, 0};
    bool ok = wr.begin_gc(info).is_ok();
    if (g == 1) {
      std::vector<SampledType> types;
      for (uint64_t t = 1; t <= 50; ++t) types.push_back({0x7ff100000000 + t * 0x100, "App.Type" + std::to_string(t)});
      std::vector<StackFunction> functions;
      for (uint64_t f = 1; f <= 400; ++f)
        functions.push_back({0x7ff000000000 + f * 0x10, "App.dll", "App.Class" + std::to_string(f % 40), "M" + std::to_string(f)});
      std::vector<AllocStack> stacks;
      for (uint32_t s = 1; s <= 200; ++s) {
        AllocStack stack{s, {}};
        for (uint64_t k = 0; k < 8; ++k) stack.frames.push_back({0x7ff000000000 + ((s * 7 + k * 13) % 400 + 1) * 0x10, FrameKind::Managed});
        stacks.push_back(std::move(stack));
      }
      ok = ok && write_sampled_types(wr, types).is_ok() && write_stack_functions(wr, functions).is_ok() &&
           write_alloc_stacks(wr, stacks).is_ok();
    }
    std::vector<AllocSample> batch(per_gc);
    std::vector<uint64_t> old_starts, new_starts, lengths;
    for (uint64_t i = 0; i < per_gc; ++i) {
      AllocSample& s = batch[i];
      s.address = 0x7f0000000000 + i * 64;
      s.class_id = 0x7ff100000000 + (i % 50 + 1) * 0x100;
      s.size = 24 + (i % 5) * 8;
      s.stack_id = static_cast<uint32_t>(i % 200 + 1);
      s.time_ns = info.start_time_ns - 1000 + i % 1000;
      if (i % 10 == 0) {
        old_starts.push_back(s.address), new_starts.push_back(gen1_next), lengths.push_back(64);
        gen1_next += 64;
      }
    }
    ok = ok && write_alloc_samples(wr, batch).is_ok() && wr.add_moved_ranges(old_starts, new_starts, lengths).is_ok();
    if (!ok || !wr.end_gc(info).is_ok()) return 1;
  }
  return wr.close().is_ok() ? 0 : 1;
}
