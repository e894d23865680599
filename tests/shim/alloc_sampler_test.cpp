// The allocation sampler without a runtime (profiler-shim/alloc_sampler.hpp): payloads of
// events 303 and 10 as the runtime lays them out, stacks interned, the rate cap's thinning,
// and the samples split at a GC's start time into the block the reader then follows.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloc_sampler.hpp"
#include "gcsnap/gcsnap.hpp"
#include "payload_bytes.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::shim;
using gcsnap::shim::test::Bytes;

namespace {

uint64_t g_now = 1000;
uint64_t test_clock() noexcept { return g_now; }

class FakeRuntime final : public AllocRuntime {
 public:
  std::vector<uint64_t> frames{0x100, 0x200};
  uint64_t current_thread() noexcept override { return 77; }
  size_t stack(std::span<uint64_t> out, std::span<uint8_t> native, bool& truncated) noexcept override {
    for (size_t i = 0; i < frames.size(); ++i) out[i] = frames[i], native[i] = i == 1;
    truncated = false;
    return frames.size();
  }
  bool name_function(uint64_t function_id, StackFunction& out) override {
    out.module = "App.dll";
    out.type = "App.Program";
    out.method = "M" + std::to_string(function_id);
    return true;
  }
};

Bytes& utf16(Bytes& b, const char* text) {
  for (const char* p = text; *p; ++p) b.u16(static_cast<uint8_t>(*p));
  return b.u16(0);
}

std::vector<uint8_t> sampled(uint64_t address, uint64_t size, uint32_t heap = 0) {
  Bytes b;
  b.u32(heap).u16(0).u64(0xC1A55);
  utf16(b, "App.Order");
  b.u64(address).u64(size).u64(12);
  return b.data;
}

}  // namespace

TEST_CASE("sampling payloads parse as the runtime lays them out", "[shim][alloc]") {
  auto s = parse_sample_event(alloc_event::kSampled, 0, sampled(0x7f00, 32, 1));
  REQUIRE(s);
  CHECK(s->class_id == 0xC1A55);
  CHECK(s->address == 0x7f00);
  CHECK(s->size == 32);
  CHECK(s->heap == AllocHeap::Large);
  CHECK(s->type_name_utf16.size() == 18);
  Bytes tick;
  tick.u32(100000).u32(0).u16(0).u64(102400).u64(0xC1A55);
  utf16(tick, "T").u32(0).u64(0x8000).u64(24);
  auto t = parse_sample_event(alloc_event::kTick, 4, tick.data);
  REQUIRE(t);
  CHECK(t->kind == AllocSampleKind::Tick);
  CHECK(t->amount == 102400);
  CHECK(t->address == 0x8000);
  CHECK_FALSE(parse_sample_event(alloc_event::kTick, 3, tick.data));  // no ObjectSize before v4
  auto cut = sampled(0x7f00, 32);
  // Cut anywhere before the last field read (SampledByteOffset, the last 8 bytes, is not read).
  for (size_t n = 0; n < cut.size() - 8; ++n) CHECK_FALSE(parse_sample_event(alloc_event::kSampled, 0, {cut.data(), n}));
  CHECK_FALSE(parse_sample_event(alloc_event::kSampled, 0, sampled(0x7f00, 32, 3)));  // no such heap
}

TEST_CASE("the rate cap keeps one event in 16 with scale 16 past it", "[shim][alloc]") {
  FakeRuntime runtime;
  AllocSampler sampler(runtime, 100, test_clock);
  g_now = 5'000'000'000;
  for (int i = 0; i < 100 + 160; ++i) sampler.on_event(alloc_event::kSampled, 0, sampled(0x7f00 + 64 * i, 32));
  const auto stats = sampler.stats();
  CHECK(stats.events == 260);
  CHECK(stats.kept == 110);
  CHECK(stats.thinned == 150);
  CHECK(stats.stacks == 1);
}

TEST_CASE("samples go into the block of the first GC that starts after them", "[shim][alloc]") {
  FakeRuntime runtime;
  AllocSampler sampler(runtime, 0, test_clock);
  g_now = 1000;
  sampler.on_event(alloc_event::kSampled, 0, sampled(0x7f0000000100, 32));
  runtime.frames = {0x300};
  g_now = 3000;
  sampler.on_event(alloc_event::kSampled, 0, sampled(0x7f0000000200, 32));
  gcsnap::test::TempFile file("alloc_sampler");
  {
    auto w = Writer::create(file.path(), WriterOptions{});
    REQUIRE(w);
    for (uint64_t gc = 1; gc <= 2; ++gc) {
      GcInfo info{gc, 1, GcReason::Other, false, SnapshotTrigger::None, gc * 2000, gc * 2000 + 10, 0};
      REQUIRE((*w)->begin_gc(info).is_ok());
      REQUIRE(sampler.write_before(**w, info.start_time_ns).is_ok());
      REQUIRE((*w)->end_gc(info).is_ok());
    }
    REQUIRE((*w)->close().is_ok());
  }
  auto rec = Recording::open(file.path());
  REQUIRE(rec);
  auto first = read_alloc_samples(**rec, 0);
  auto second = read_alloc_samples(**rec, 1);
  REQUIRE(first);
  REQUIRE(second);
  REQUIRE(first->size() == 1);
  REQUIRE(second->size() == 1);
  CHECK((*first)[0].address == 0x7f0000000100);
  CHECK((*first)[0].thread == 77);
  auto names = AllocNames::read(**rec, 1);
  REQUIRE(names);
  const AllocStack* a = names->find_stack((*first)[0].stack_id);
  const AllocStack* b = names->find_stack((*second)[0].stack_id);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(a->frames.size() == 2);
  CHECK(a->frames[1].kind == FrameKind::Native);
  CHECK(names->frame_name(a->frames[0]) == "App.Program.M256");
  CHECK(names->frame_name(b->frames[0]) == "App.Program.M768");
  CHECK(names->type_name(0xC1A55) == "App.Order");
}

// docs/shim.md "Allocation sites": the interned stacks stay within their budget; past it a known
// stack still matches, a new one is kept as the one stack "<truncated>", and the samples count.
TEST_CASE("the stack table stays within its budget", "[shim][alloc]") {
  FakeRuntime runtime;
  const size_t budget = 3 * AllocSampler::stack_cost(2);
  AllocSampler sampler(runtime, 0, test_clock, budget);
  g_now = 1000;
  uint64_t address = 0x7f0000000100;
  auto sample_with = [&](std::vector<uint64_t> frames) {
    runtime.frames = std::move(frames);
    sampler.on_event(alloc_event::kSampled, 0, sampled(address, 32));
    address += 64;
  };
  for (uint64_t f = 1; f <= 3; ++f) sample_with({0x100 * f, 0x9000});
  CHECK_FALSE(sampler.stacks_full());
  CHECK(sampler.stats().stack_bytes == budget);
  sample_with({0x400, 0x9000});  // a fourth stack: no room
  sample_with({0x500, 0x9000});
  sample_with({0x200, 0x9000});  // known: still its own stack
  CHECK(sampler.stacks_full());
  auto stats = sampler.stats();
  CHECK(stats.kept == 6);
  CHECK(stats.over_budget == 2);
  CHECK(stats.stacks == 4);  // three within the budget and the "<truncated>" one
  CHECK(stats.stack_bytes == budget);
  for (int i = 0; i < 1000; ++i) sample_with({0x1000 + uint64_t(i), 0x9000});
  CHECK(sampler.stats().stacks == 4);
  CHECK(sampler.stats().over_budget == 1002);

  gcsnap::test::TempFile file("alloc_budget");
  {
    auto w = Writer::create(file.path(), WriterOptions{});
    REQUIRE(w);
    GcInfo info{1, 1, GcReason::Other, false, SnapshotTrigger::None, 5000, 5010, 0};
    REQUIRE((*w)->begin_gc(info).is_ok());
    REQUIRE(sampler.write_before(**w, info.start_time_ns).is_ok());
    REQUIRE((*w)->end_gc(info).is_ok());
    REQUIRE((*w)->close().is_ok());
  }
  auto rec = Recording::open(file.path());
  REQUIRE(rec);
  auto samples = read_alloc_samples(**rec, 0);
  REQUIRE(samples);
  REQUIRE(samples->size() == 1006);
  auto names = AllocNames::read(**rec, 0);
  REQUIRE(names);
  size_t truncated = 0;
  for (const AllocSample& s : *samples) {
    const AllocStack* stack = names->find_stack(s.stack_id);
    REQUIRE(stack);
    if (stack->frames.size() == 1 && stack->frames[0].kind == FrameKind::Truncated) ++truncated;
  }
  CHECK(truncated == 1002);
  CHECK((*samples)[5].stack_id == (*samples)[1].stack_id);  // the known stack matched
}
