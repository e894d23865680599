// Writes the golden files of tests/golden/ (format-spec.md): one small valid recording, and
// damaged copies each named for the error a reader must give. Usage: make_golden OUTDIR
// Regenerate only when the format changes (spec first), then commit the files.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gcsnap/gcsnap.hpp>

#include "format/byte_io.hpp"
#include "format/format_constants.hpp"
#include "format/section.hpp"
#include "format/walk_dropper.hpp"
#include "values_sample.hpp"

using namespace gcsnap;
using Bytes = std::vector<uint8_t>;

namespace {

bool write_sample(const std::string& path, bool duplicate_address, uint64_t required_features = 0) {
  WriterOptions options;
  options.required_features = required_features;
  options.background_compression = false;
  options.chunk_items = 64;
  auto w = Writer::create(path, options);
  if (!w) return false;
  Writer& wr = **w;
  GcInfo gc1{1, generation_bit(Generation::Gen0), GcReason::Other, false, SnapshotTrigger::None,
             1700000000000000000ull, 1700000000000500000ull, 1};
  bool ok = wr.begin_gc(gc1).is_ok();
  GenerationRange bounds[] = {{Generation::Gen0, 0x7f0000400000, 0x10000, 0x400000},
                              {Generation::Gen1, 0x7f0000800000, 0x8000, 0x400000},
                              {Generation::Gen2, 0x7f0000c00000, 0x20000, 0x400000},
                              {Generation::LargeObjectHeap, 0x7f0004000000, 0x30000, 0x800000}};
  ok = ok && wr.add_generation_bounds(bounds).is_ok();
  uint64_t ids[] = {0x7f0000400018, 0, 0x7f0000400030, 0x7f0000c00100, 0x7f0000400048};
  uint8_t kinds[] = {1, 1, 3, 3, 2};
  uint8_t flags[] = {0, 0, root_flags::kWeakRef, root_flags::kPinning, 0};
  uint64_t root_ids[] = {0x7ff000001000, 0x7ff000001000, 0x1a0, 0x1a8, 0};
  ok = ok && wr.add_roots(ids, kinds, flags, root_ids).is_ok();
  uint64_t s_starts[] = {0x7f0000400000, 0x7f0000408000}, s_lengths[] = {0x100, 0x40};
  ok = ok && wr.add_surviving_ranges(s_starts, s_lengths).is_ok();
  TypeRecord types1[] = {{1, 0x7ff100001000, "System.String", "System.Private.CoreLib.dll"},
                         {2, 0x7ff100002000, "System.Object[]", "System.Private.CoreLib.dll"}};
  ok = ok && wr.add_types(types1).is_ok();
  MethodRecord methods[] = {{0x7ff000001000, "App.Program.Main"}};
  ok = ok && wr.add_methods(methods).is_ok() && wr.end_gc(gc1).is_ok();

  GcInfo gc2{2, generation_bit(Generation::Gen0) | generation_bit(Generation::Gen1), GcReason::Other, true,
             SnapshotTrigger::None, 1700000001000000000ull, 1700000001000900000ull, 2};
  ok = ok && wr.begin_gc(gc2).is_ok();
  uint64_t ids2[] = {0x7f0000800018, 0x7f0000800030, 0};
  uint8_t kinds2[] = {1, 3, 0}, flags2[] = {root_flags::kInterior, 0, 0};
  uint64_t rid2[] = {0x7ff000001000, 0x1a0, 0};
  ok = ok && wr.add_roots(ids2, kinds2, flags2, rid2).is_ok();
  uint64_t m_old[] = {0x7f0000400000, 0x7f0000408000}, m_new[] = {0x7f0000800000, 0x7f0000800100},
           m_len[] = {0x100, 0x40};
  ok = ok && wr.add_moved_ranges(m_old, m_new, m_len).is_ok() && wr.end_gc(gc2).is_ok();

  GcInfo gc3{3, 0x7, GcReason::Induced, true, SnapshotTrigger::OnDemand, 1700000002000000000ull,
             1700000002004000000ull, 3};
  ok = ok && wr.begin_gc(gc3).is_ok();
  TypeRecord types3[] = {{3, 0x7ff100003000, "App.Cache+Entry", "App.dll"},
                         {4, 0x7ff100004000, "System.Collections.Generic.Dictionary`2[System.String,App.Cache+Entry]",
                          "System.Private.CoreLib.dll"}};
  ok = ok && wr.add_types(types3).is_ok();
  ok = ok && wr.add_roots(std::span(ids2, 2), std::span(kinds2, 2), std::span(flags2, 2), std::span(rid2, 2)).is_ok();
  // Heap-walk order, not address order; one frozen (non-GC heap) string.
  uint64_t addr[] = {0x7f0000c00100, 0x7f0000c00040, 0x7f0000c00018, 0x7f0000c00070, 0x7f0000c000a0,
                     0x7f0000c000d8, 0x7f0004000018, 0x7e0000001000};
  if (duplicate_address) addr[1] = addr[2];
  uint32_t type_ids[] = {4, 3, 3, 1, 2, 1, 2, 1};
  uint64_t sizes[] = {80, 40, 40, 48, 56, 40, 88000, 32};
  uint8_t gens[] = {2, 2, 2, 2, 2, 2, 3, 5};
  uint32_t counts[] = {2, 1, 2, 0, 3, 0, 1, 0};
  uint64_t refs[] = {0x7f0000c000a0, 0x7f0000c00040, 0x7f0000c00070, 0x7f0000c00018, 0x7e0000001000,
                     0x7f0000c00018, 0x7f0000c00040, 0x7f0000c000d8, 0x7f0000c00100};
  ok = ok && wr.add_objects(addr, type_ids, sizes, gens, counts, refs).is_ok();
  // 48 small strings in a row: enough for the objects chunk to be zstd-compressed.
  std::vector<uint64_t> more_addr, more_sizes(48, 24);
  std::vector<uint32_t> more_types(48, 1), more_counts(48, 0);
  std::vector<uint8_t> more_gens(48, 2);
  for (uint64_t i = 0; i < 48; ++i) more_addr.push_back(0x7f0000c01000 + 24 * i);
  ok = ok && wr.add_objects(more_addr, more_types, more_sizes, more_gens, more_counts, {}).is_ok();
  // §6.11 (1.1): one App.Cache+Entry keeps a string alive through a dependent handle, and the
  // other one an object that no reference reaches.
  uint64_t primaries[] = {0x7f0000c00040, 0x7f0000c00018};
  uint64_t secondaries[] = {0x7f0000c000d8, 0x7f0000c01000};
  ok = ok && wr.add_dependent_handles(primaries, secondaries).is_ok();
  // §6.22 (1.5): the object at 0x7f0000c00070 calls App.Cache.OnEvict, the one at
  // 0x7f0000c000d8 a method the writer could not resolve.
  MethodRecord methods3[] = {{0x7ff000002000, "App.Cache.OnEvict"}};
  DelegateTarget delegates[] = {{0x7f0000c000d8, 0}, {0x7f0000c00070, 0x7ff000002000}};
  ok = ok && wr.add_methods(methods3).is_ok() && wr.add_delegate_targets(delegates).is_ok();
  ok = ok && wr.add_drops({0, 0, 3, 5, drop_reason::kTypeUnresolved}).is_ok() && wr.end_gc(gc3).is_ok();
  return ok && wr.close().is_ok();
}

// Two GCs with memory accounting (§6.16, since 1.2): a gen0 GC with the process's figures only,
// and a walked gen2 GC with every group, a cgroup limit included. Most of the 64 MiB resident
// is not the GC heap's, as in a process that leaks native memory.
bool write_memory_sample(const std::string& path) {
  WriterOptions options;
  options.background_compression = false;
  auto w = Writer::create(path, options);
  if (!w) return false;
  Writer& wr = **w;
  constexpr uint64_t kMiB = 1ull << 20;
  GcInfo gc1{1, generation_bit(Generation::Gen0), GcReason::Other, false, SnapshotTrigger::None,
             1700000000000000000ull, 1700000000000500000ull, 1};
  GenerationRange bounds[] = {{Generation::Gen0, 0x7f0000000000, 1 * kMiB, 4 * kMiB},
                              {Generation::Gen2, 0x7f0000c00000, 3 * kMiB, 4 * kMiB},
                              {Generation::LargeObjectHeap, 0x7f0004000000, 2 * kMiB, 32 * kMiB}};
  bool ok = wr.begin_gc(gc1).is_ok() && wr.add_generation_bounds(bounds).is_ok();
  MemoryAccounting m1;
  m1.present = memory_present::kProcess | memory_present::kGcMappings;
  m1.sample_delay_ns = 150000;
  m1.rss_bytes = 40 * kMiB, m1.pss_bytes = 38 * kMiB;
  m1.gc_committed_bytes = 8 * kMiB, m1.gc_resident_bytes = 6 * kMiB, m1.gc_in_use_bytes = 6 * kMiB;
  m1.code_bytes = 20 * kMiB, m1.mapped_file_bytes = 4 * kMiB, m1.stack_bytes = 1 * kMiB;
  m1.anonymous_bytes = 9 * kMiB, m1.recorder_bytes = 2 * kMiB;
  ok = ok && wr.add_memory_accounting(m1).is_ok() && wr.end_gc(gc1).is_ok();

  GcInfo gc2{2, 0x7, GcReason::Induced, true, SnapshotTrigger::OnDemand, 1700000001000000000ull,
             1700000001002000000ull, 2};
  ok = ok && wr.begin_gc(gc2).is_ok() && wr.add_generation_bounds(bounds).is_ok();
  TypeRecord types[] = {{1, 0x7ff100001000, "System.Byte[]", "System.Private.CoreLib.dll"}};
  ok = ok && wr.add_types(types).is_ok();
  uint64_t addr[] = {0x7f0000c00018, 0x7f0004000018};
  uint32_t type_ids[] = {1, 1};
  uint64_t sizes[] = {1 * kMiB, 2 * kMiB};
  uint8_t gens[] = {2, 3};
  uint32_t counts[] = {0, 0};
  ok = ok && wr.add_objects(addr, type_ids, sizes, gens, counts, {}).is_ok();
  MemoryAccounting m2 = m1;
  m2.present |= memory_present::kLiveObjects | memory_present::kCgroupUsage | memory_present::kCgroupLimit;
  m2.rss_bytes = 64 * kMiB, m2.pss_bytes = 60 * kMiB;
  m2.anonymous_bytes = 33 * kMiB, m2.live_object_bytes = 3 * kMiB;
  m2.cgroup_usage_bytes = 80 * kMiB, m2.cgroup_limit_bytes = 256 * kMiB;
  ok = ok && wr.add_memory_accounting(m2).is_ok() && wr.end_gc(gc2).is_ok();
  return ok && wr.close().is_ok();
}

// §6.18-§6.21 (1.5): allocation samples at GC 1, followed to GC 2's walk. A (gen0) moves at
// GC 1 and lives; B (gen0) dies at GC 1; C (large object heap) is not condemned by GC 1; a tick
// D comes before GC 2 and is in a surviving range of it.
bool write_alloc_sample(const std::string& path) {
  WriterOptions options;
  options.background_compression = false;
  auto w = Writer::create(path, options);
  if (!w) return false;
  Writer& wr = **w;
  GcInfo gc1{1, generation_bit(Generation::Gen0), GcReason::Other, true, SnapshotTrigger::None,
             1700000000000000000ull, 1700000000000500000ull, 1};
  GenerationRange bounds[] = {{Generation::Gen0, 0x7f0000000000, 0x100000, 0x400000},
                              {Generation::Gen1, 0x7f0000800000, 0x100000, 0x400000},
                              {Generation::LargeObjectHeap, 0x7f0004000000, 0x200000, 0x2000000}};
  bool ok = wr.begin_gc(gc1).is_ok() && wr.add_generation_bounds(bounds).is_ok();
  const SampledType types[] = {{0x7ff100002000, "App.Order"}, {0x7ff100003000, "System.Byte[]"}};
  const StackFunction functions[] = {{0x7ff000001000, "App.dll", "App.Program", "Main"},
                                     {0x7ff000002000, "App.dll", "App.Orders", "Create<System.Int32>"},
                                     {0x7ff000003000, "System.Private.CoreLib.dll", "System.GC", "AllocateNewArray"}};
  const AllocStack stacks[] = {{1, {{0x7ff000002000, FrameKind::Managed}, {0x7ff000001000, FrameKind::Managed}}},
                               {2, {{0x7ff000003000, FrameKind::Managed}, {0x7f1234, FrameKind::Native},
                                    {0x7ff000001000, FrameKind::Managed}, {0, FrameKind::Truncated}}}};
  const AllocSample samples1[] = {
      {0x7f0000000100, 0x7ff100002000, 32, 0, 0x55aa00, 1700000000000000100ull, 1, 1, AllocSampleKind::Sampled, AllocHeap::Small},
      {0x7f0000000200, 0x7ff100002000, 32, 0, 0x55aa00, 1700000000000000200ull, 1, 3, AllocSampleKind::Sampled, AllocHeap::Small},
      {0x7f0004000018, 0x7ff100003000, 100024, 0, 0x55aa00, 1700000000000000300ull, 2, 1, AllocSampleKind::Sampled, AllocHeap::Large}};
  ok = ok && write_sampled_types(wr, types).is_ok() && write_stack_functions(wr, functions).is_ok() &&
       write_alloc_stacks(wr, stacks).is_ok() && write_alloc_samples(wr, samples1).is_ok();
  uint64_t old_starts[] = {0x7f0000000100}, new_starts[] = {0x7f0000800100}, lengths[] = {32};
  ok = ok && wr.add_moved_ranges(old_starts, new_starts, lengths).is_ok() && wr.end_gc(gc1).is_ok();

  GcInfo gc2{2, 0x1F, GcReason::Induced, false, SnapshotTrigger::OnDemand, 1700000001000000000ull,
             1700000001002000000ull, 2};
  ok = ok && wr.begin_gc(gc2).is_ok() && wr.add_generation_bounds(bounds).is_ok();
  const AllocSample samples2[] = {
      {0x7f0000000400, 0x7ff100002000, 32, 102400, 0x55bb00, 1700000000500000000ull, 1, 1, AllocSampleKind::Tick, AllocHeap::Small}};
  ok = ok && write_alloc_samples(wr, samples2).is_ok();
  uint64_t surv_starts[] = {0x7f0000000400, 0x7f0000800100, 0x7f0004000018}, surv_lengths[] = {32, 32, 100024};
  ok = ok && wr.add_surviving_ranges(surv_starts, surv_lengths).is_ok();
  TypeRecord walk_types[] = {{1, 0x7ff100002000, "App.Order", "App.dll"},
                             {2, 0x7ff100003000, "System.Byte[]", "System.Private.CoreLib.dll"}};
  ok = ok && wr.add_types(walk_types).is_ok();
  uint64_t addr[] = {0x7f0000000400, 0x7f0000800100, 0x7f0004000018};
  uint32_t type_ids[] = {1, 1, 2};
  uint64_t sizes[] = {32, 32, 100024};
  uint8_t gens[] = {0, 1, 3};
  uint32_t counts[] = {0, 0, 0};
  ok = ok && wr.add_objects(addr, type_ids, sizes, gens, counts, {}).is_ok() && wr.end_gc(gc2).is_ok();
  return ok && wr.close().is_ok();
}

Bytes load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool save(const std::string& path, const Bytes& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return static_cast<bool>(out);
}

struct Found {
  size_t offset = 0;
  format::SectionHeader header;
};

// Section headers in file order, up to (not including) the trailer.
std::vector<Found> list_sections(const Bytes& b) {
  std::vector<Found> out;
  size_t pos = format::kFileHeaderSize;
  while (pos + format::kSectionHeaderSize <= b.size() - format::kTrailerSize) {
    auto h = format::decode_section_header({b.data() + pos, b.size() - pos}, pos);
    if (!h) break;
    out.push_back({pos, *h});
    pos += format::kSectionHeaderSize + h->stored_size;
  }
  return out;
}

const Found* find_section(const std::vector<Found>& all, format::SectionType type, size_t nth = 0) {
  for (const auto& f : all)
    if (f.header.type == static_cast<uint16_t>(type) && nth-- == 0) return &f;
  return nullptr;
}

// Recompute a section's payload checksum and header checksum after an edit.
void reseal(Bytes& b, const Found& f, const format::SectionHeader& h) {
  format::SectionHeader n = h;
  n.payload_checksum = format::checksum64({b.data() + f.offset + format::kSectionHeaderSize, h.stored_size});
  format::encode_section_header(n, b.data() + f.offset);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_golden OUTDIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  auto out = [&](const char* name) { return dir + "/" + name; };
  if (!write_sample(out("sample-valid.snap"), false)) return 1;
  if (!write_sample(out("inconsistent-data.snap"), true)) return 1;
  // §3 (1.4): the same sample, marked as recorded by the events source.
  if (!write_sample(out("events-source.snap"), false, kFeatureEventsSource)) return 1;
  if (!write_memory_sample(out("memory-valid.snap"))) return 1;
  if (!write_alloc_sample(out("alloc-samples-valid.snap"))) return 1;
  // §6.23-§6.26 (1.5): a walk with string values, captured contents and collection values.
  if (!test::write_values_sample(out("values-valid.snap"), 16)) return 1;
  const Bytes sample = load(out("sample-valid.snap"));
  const auto sections = list_sections(sample);
  const Found* last_end = nullptr;
  for (const auto& f : sections)
    if (f.header.type == static_cast<uint16_t>(format::SectionType::BlockEnd)) last_end = &f;
  const Found* index = find_section(sections, format::SectionType::Index);
  const Found* roots = find_section(sections, format::SectionType::Roots);
  const Found* objects = find_section(sections, format::SectionType::Objects);
  if (!last_end || !index || !roots || !objects || objects->header.codec != format::Codec::Zstd) return 1;
  const size_t blocks_end = index->offset;
  bool ok = true;

  ok &= save(out("no-index.snap"), Bytes(sample.begin(), sample.begin() + static_cast<ptrdiff_t>(blocks_end)));
  ok &= save(out("truncated-block.snap"), Bytes(sample.begin(), sample.begin() + static_cast<ptrdiff_t>(last_end->offset + 20)));
  ok &= save(out("truncated-header.snap"), Bytes(sample.begin(), sample.begin() + 20));
  ok &= save(out("empty.snap"), Bytes());
  Bytes b = sample;
  b[1] = 'X';
  ok &= save(out("bad-magic.snap"), b);
  b = sample;
  format::store_le16(b.data() + 8, 2);
  ok &= save(out("unsupported-version.snap"), b);
  b = sample;
  format::store_le64(b.data() + 16, uint64_t{1} << 63);
  format::store_le64(b.data() + 32, format::checksum64({b.data(), 32}));
  ok &= save(out("unknown-required-feature.snap"), b);
  b = sample;
  b[roots->offset + format::kSectionHeaderSize + 2] ^= 0x10;  // payload changed, checksum not
  ok &= save(out("checksum-mismatch.snap"), b);
  b = sample;
  b[roots->offset + format::kSectionHeaderSize] = 0x07;  // first column: an undefined kind
  reseal(b, *roots, roots->header);
  ok &= save(out("corrupt-section.snap"), b);
  b = sample;
  b[objects->offset + format::kSectionHeaderSize] ^= 0xFF;  // zstd frame magic broken, resealed
  reseal(b, *objects, objects->header);
  ok &= save(out("decompression-failed.snap"), b);
  b = sample;
  format::SectionHeader big = objects->header;
  big.decoded_size = 1ull << 31;  // above the 1 GiB section limit
  reseal(b, *objects, big);
  ok &= save(out("limit-exceeded.snap"), b);
  b = sample;
  b[index->offset + format::kSectionHeaderSize + 1] ^= 0x01;  // index payload damaged
  ok &= save(out("corrupt-index.snap"), b);
  // §6.17: GC 3's walk dropped as a writer with a size cap does it, the freed payload as zeros.
  b = sample;
  size_t last_start = 0;
  for (const auto& f : sections)
    if (f.header.type == static_cast<uint16_t>(format::SectionType::BlockStart)) last_start = f.offset;
  for (const auto& f : sections) {
    if (f.offset < last_start || f.offset > last_end->offset || !format::is_droppable_section(f.header.type)) continue;
    format::SectionHeader d;
    d.type = static_cast<uint16_t>(format::SectionType::Dropped);
    d.item_count = f.header.type;
    d.stored_size = d.decoded_size = f.header.stored_size;
    std::fill_n(b.begin() + static_cast<ptrdiff_t>(f.offset + format::kSectionHeaderSize),
                static_cast<ptrdiff_t>(f.header.stored_size), uint8_t{0});
    format::encode_section_header(d, b.data() + f.offset);
  }
  ok &= save(out("walk-dropped.snap"), b);
  return ok ? 0 : 1;
}
