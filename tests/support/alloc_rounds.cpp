#include "alloc_rounds.hpp"

#include <vector>

#include "gcsnap/alloc_samples.hpp"
#include "leak_rounds.hpp"

namespace gcsnap::test {
namespace {

constexpr uint32_t kHolder = 1, kItem = 2, kTemp = 3;

AllocSample sample_of(const RoundHeap& h, size_t id, uint32_t type, uint32_t stack) {
  AllocSample s;
  s.address = h.address_of(id);
  s.class_id = 0x100 + type - 1;  // RoundHeap's ClassIDs
  s.size = 32;
  s.thread = 1;
  s.time_ns = 1'700'000'000'000'000'000ull;
  s.stack_id = stack;
  return s;
}

Status write_names(Writer& w) {
  const std::vector<StackFunction> functions = {
      {0xF1, "App.dll", "App.Cache", "Add"},
      {0xF2, "App.dll", "App.Loader", "Load"},
      {0xF3, "System.Private.CoreLib.dll", "System.Collections.Generic.List`1", "Add"},
      {0xF4, "App.dll", "App.Worker", "Run"}};
  using K = FrameKind;
  const std::vector<AllocStack> stacks = {
      {1, {{0xF3, K::Managed}, {0xF1, K::Managed}, {0xF4, K::Managed}}},
      {2, {{0xF2, K::Managed}, {0xF4, K::Managed}}},
      {3, {{0xF4, K::Managed}, {0x7f00dead, K::Native}}}};
  const std::vector<SampledType> types = {{0x101, "App.Item"}, {0x102, "App.Temp"}};
  GCSNAP_RETURN_IF_ERROR(write_stack_functions(w, functions));
  GCSNAP_RETURN_IF_ERROR(write_alloc_stacks(w, stacks));
  return write_sampled_types(w, types);
}

}  // namespace

Status write_alloc_rounds(const std::string& path) {
  auto writer = Writer::create(path);
  if (!writer) return writer.status();
  Writer& w = **writer;
  RoundHeap h({"App.Holder", "App.Item", "App.Temp"});
  const size_t holder = h.add(kHolder);
  h.root(holder);
  const size_t first = h.add(kItem);
  h.ref(holder, first);
  std::vector<AllocSample> samples = {sample_of(h, first, kItem, 3)};
  bool first_gc = true;
  h.before_end = [&](Writer& out) -> Status {
    if (first_gc) GCSNAP_RETURN_IF_ERROR(write_names(out));
    first_gc = false;
    return write_alloc_samples(out, samples);
  };
  GCSNAP_RETURN_IF_ERROR(h.write_gc(w));
  for (uint32_t round = 1; round <= 4; ++round) {
    samples.clear();
    for (uint32_t i = 0; i < 4; ++i) {
      const size_t item = h.add(kItem);
      h.ref(holder, item);
      const uint32_t stack = i < 3 ? 1 : round <= 2 ? 2 : round == 3 ? 4 : 77;
      samples.push_back(sample_of(h, item, kItem, stack));
    }
    for (int i = 0; i < 3; ++i) {
      const size_t temp = h.add(kTemp);
      samples.push_back(sample_of(h, temp, kTemp, 3));
      h.kill(temp);  // garbage at this GC: not in its surviving ranges
    }
    if (round == 3) {
      h.before_end = [&, inner = h.before_end](Writer& out) -> Status {
        GCSNAP_RETURN_IF_ERROR(write_alloc_stacks(out, std::vector<AllocStack>{{4, {{0xF9, FrameKind::Managed}}}}));
        return inner(out);
      };
    }
    GCSNAP_RETURN_IF_ERROR(h.write_gc(w));
    if (round == 3) h.before_end = [&](Writer& out) { return write_alloc_samples(out, samples); };
  }
  return w.close();
}

}  // namespace gcsnap::test
