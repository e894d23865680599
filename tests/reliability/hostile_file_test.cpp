// Hostile files (docs/reliability.md): each must give a clear error, or (odd but legal data) a correct
// answer, with memory bounded by what the file really holds. The files are crafted section by
// section (craft.hpp) so each test names exactly one lie.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include <zstd.h>

#include "craft.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/heap_graph.hpp"

using namespace gcsnap;
using craft::File;
using craft::Obj;
using format::SectionType;

namespace {

std::unique_ptr<Recording> open_ok(const File& f, const ReaderLimits& limits = {}) {
  auto r = Recording::from_bytes(f.view(), limits);
  if (!r) FAIL("open: " << error_code_name(r.error().code) << " " << r.error().detail);
  return std::move(*r);
}

template <typename R>
ErrorCode code_of(const R& r) {
  return r.is_ok() ? ErrorCode::Ok : r.error().code;
}
ErrorCode code_of(const Status& s) { return s.code(); }

// A block with a few objects, roots, types: the base most tests damage one thing of.
void good_block(File& f, uint64_t gc, uint64_t base = 0x10000) {
  f.begin_block(gc);
  if (gc == 1) f.section(SectionType::Types, 2, craft::types_payload({{1, "System.String", "a.dll"}, {2, "Node", "a.dll"}}));
  std::vector<Obj> objs = {{base, 1, 24, 0, {base + 32}}, {base + 32, 2, 32, 0, {base, base + 64}}, {base + 64, 2, 32, 1, {}}};
  f.section(SectionType::Objects, objs.size(), craft::objects_payload(objs), true);
  f.summary().entry.reference_count = craft::reference_total(objs);
  f.section(SectionType::Roots, 1, craft::roots_payload({base}));
  f.end_block();
}

// Run FN in a child process; return its exit code and its peak RSS growth over an idle child
// (both forks inherit the same pages, so the difference is what FN allocated and touched).
struct ChildResult {
  int exit_code = -1;
  long rss_growth_kib = 0;
};
long child_maxrss(const std::function<int()>& fn, int& exit_code) {
  pid_t pid = fork();
  if (pid == 0) _exit(fn());
  int status = 0;
  struct rusage ru {};
  REQUIRE(wait4(pid, &status, 0, &ru) == pid);
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return ru.ru_maxrss;
}
ChildResult in_child(const std::function<int()>& fn) {
  int idle_code = 0;
  long idle = child_maxrss([] { return 0; }, idle_code);
  ChildResult r;
  long peak = child_maxrss(fn, r.exit_code);
  r.rss_growth_kib = peak - idle;
  return r;
}

// Open F in a child process with LIMITS, call READ on its first GC, and check the error code
// and that the child's peak memory grew by less than MAX_GROWTH_KIB.
template <typename Table>
void check_bounded_error(const File& f, const ReaderLimits& limits,
                         Result<Table> (Recording::*read)(size_t) const, ErrorCode expected,
                         long max_growth_kib) {
  auto r = in_child([&] {
    auto rec = Recording::from_bytes(f.view(), limits);
    if (!rec) return 100;
    return static_cast<int>(code_of(((**rec).*read)(0)));
  });
  CHECK(r.exit_code == static_cast<int>(expected));
  INFO("RSS growth " << r.rss_growth_kib << " KiB");
  CHECK(r.rss_growth_kib < max_growth_kib);
}

// A zstd frame of `size` zero bytes with its content size in the header (a "bomb": a few KiB
// that expand to size bytes).
std::vector<uint8_t> zero_bomb(uint64_t size) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 19);
  ZSTD_CCtx_setPledgedSrcSize(c, size);
  std::vector<uint8_t> zeros(1 << 20, 0), out;
  std::vector<uint8_t> buf(ZSTD_CStreamOutSize());
  uint64_t left = size;
  for (;;) {
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, zeros.size()));
    ZSTD_inBuffer in{zeros.data(), chunk, 0};
    ZSTD_EndDirective mode = left == chunk ? ZSTD_e_end : ZSTD_e_continue;
    size_t rem = 0;
    do {
      ZSTD_outBuffer o{buf.data(), buf.size(), 0};
      rem = ZSTD_compressStream2(c, &o, &in, mode);
      REQUIRE(!ZSTD_isError(rem));
      out.insert(out.end(), buf.data(), buf.data() + o.pos);
    } while (in.pos < in.size || (mode == ZSTD_e_end && rem != 0));
    left -= chunk;
    if (mode == ZSTD_e_end) break;
  }
  ZSTD_freeCCtx(c);
  return out;
}

// A block whose only data section is a roots section with the given header and stored bytes.
File roots_block_with(format::SectionHeader h, const std::vector<uint8_t>& stored) {
  File f;
  f.begin_block(1, SnapshotTrigger::None);
  f.section_raw(h, stored);
  f.end_block();
  f.finish();
  return f;
}

}  // namespace

TEST_CASE("the crafted base file is valid", "[hostile]") {
  File f;
  good_block(f, 1);
  good_block(f, 2, 0x20000);
  f.finish();
  auto rec = open_ok(f);
  REQUIRE(rec->end() == FileEnd::Complete);
  REQUIRE(rec->gcs().size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    INFO("gc " << i);
    REQUIRE(rec->verify_gc(i).is_ok());
    auto objs = rec->read_objects(i);
    REQUIRE(objs.is_ok());
    REQUIRE(objs->size() == 3);
    REQUIRE(objs->reference_targets.size() == 3);
  }
}

// ---- declared sizes beyond the end ----

TEST_CASE("a section whose stored size runs past the end of the file", "[hostile][sizes]") {
  for (uint64_t stored : {uint64_t{1} << 20, UINT64_MAX - 20, UINT64_MAX}) {
    INFO("stored_size " << stored);
    File f;
    good_block(f, 1);
    f.begin_block(2);
    format::SectionHeader h;
    h.type = static_cast<uint16_t>(SectionType::Roots);
    h.item_count = 1;
    h.stored_size = h.decoded_size = stored;
    std::vector<uint8_t> some(16, 0xAB);
    f.section_raw(h, some);
    auto rec = open_ok(f);
    REQUIRE(rec->end() == FileEnd::Truncated);
    REQUIRE(rec->end_error().code == ErrorCode::Truncated);
    REQUIRE(rec->gcs().size() == 1);  // the complete block before the cut
    REQUIRE(rec->end_offset() == f.blocks[0].entry.block_offset + f.blocks[0].entry.block_size);
    REQUIRE(rec->verify_gc(0).is_ok());
  }
}

TEST_CASE("an index entry whose block runs past the end of the file", "[hostile][sizes]") {
  File f;
  good_block(f, 1);
  good_block(f, 2, 0x20000);
  auto entries = f.blocks;
  entries[1].entry.block_size = uint64_t{1} << 40;
  f.finish(entries);
  auto rec = open_ok(f);
  // The index is unusable, so the reader scans: both blocks are whole, the file is corrupt.
  REQUIRE(rec->end() == FileEnd::Corrupt);
  REQUIRE(rec->end_error().code == ErrorCode::CorruptSection);
  REQUIRE(rec->gcs().size() == 2);
  REQUIRE(rec->gcs()[1].block_size == f.blocks[1].entry.block_size);
  REQUIRE(rec->verify_gc(1).is_ok());
}

TEST_CASE("a trailer pointing outside the file", "[hostile][sizes]") {
  File f;
  good_block(f, 1);
  f.finish();
  const size_t t = f.bytes.size() - format::kTrailerSize;
  format::store_le64(&f.bytes[t], UINT64_MAX - 8);
  format::store_le64(&f.bytes[t + 16], format::checksum64({&f.bytes[t], 16}));
  auto rec = open_ok(f);
  REQUIRE(rec->end() == FileEnd::Corrupt);
  REQUIRE(rec->gcs().size() == 1);
}

TEST_CASE("a file header whose header_size is past the end", "[hostile][sizes]") {
  File f;
  format::store_le32(&f.bytes[12], 4096);
  format::store_le64(&f.bytes[32], format::checksum64({f.bytes.data(), 32}));
  auto r = Recording::from_bytes(f.view());
  REQUIRE(!r.is_ok());
  // A 4096-byte header cannot hold its checksum at 32..40: the checksum is read at 4088.
  REQUIRE((r.error().code == ErrorCode::Truncated || r.error().code == ErrorCode::CorruptSection));
}

// ---- counts that lie or overflow ----

TEST_CASE("item counts that overflow when summed", "[hostile][counts]") {
  File f;
  f.begin_block(1, SnapshotTrigger::None);
  auto payload = craft::roots_payload({0x1000});
  format::SectionHeader h;
  h.type = static_cast<uint16_t>(SectionType::Roots);
  h.stored_size = h.decoded_size = payload.size();
  h.item_count = uint64_t{1} << 63;
  f.section_raw(h, payload);
  f.section_raw(h, payload);
  f.end_block();
  f.finish();
  auto rec = open_ok(f);
  auto roots = rec->read_roots(0);
  REQUIRE(code_of(roots) == ErrorCode::CorruptSection);
  REQUIRE(code_of(rec->verify_gc(0)) == ErrorCode::CorruptSection);
}

TEST_CASE("a section item count larger than its data", "[hostile][counts]") {
  auto payload = craft::roots_payload({0x1000});
  format::SectionHeader h;
  h.type = static_cast<uint16_t>(SectionType::Roots);
  h.stored_size = h.decoded_size = payload.size();
  h.item_count = 1000;  // > decoded_size
  File f = roots_block_with(h, payload);
  auto rec = open_ok(f);
  REQUIRE(code_of(rec->read_roots(0)) == ErrorCode::CorruptSection);
}

TEST_CASE("a block end whose counts disagree with its sections", "[hostile][counts]") {
  File f;
  f.begin_block(1);
  std::vector<Obj> objs = {{0x1000, 0, 24, 0, {0x1000}}};
  f.section(SectionType::Objects, 1, craft::objects_payload(objs));
  f.section(SectionType::Roots, 1, craft::roots_payload({0x1000}));
  auto s = f.summary();
  s.entry.root_count = 5;         // lies
  s.entry.reference_count = 7;    // lies
  f.end_block(s);
  f.finish();
  auto rec = open_ok(f);
  REQUIRE(code_of(rec->read_roots(0)) == ErrorCode::InconsistentData);
  REQUIRE(code_of(rec->read_objects(0)) == ErrorCode::InconsistentData);
  REQUIRE(code_of(rec->verify_gc(0)) == ErrorCode::InconsistentData);
}

TEST_CASE("reference counts whose sum is far above the data (allocation bomb)", "[hostile][counts][memory]") {
  // One object claiming 2^26 references (512 MiB of targets) in a section of a few bytes.
  std::vector<uint8_t> p;
  std::vector<uint64_t> addr = {0x1000}, type = {0}, size = {24}, counts = {uint64_t{1} << 26};
  std::vector<uint8_t> gens = {0};
  format::encode_delta_column(addr, p);
  format::encode_varint_column(std::span<const uint64_t>(type), p);
  format::encode_varint_column(std::span<const uint64_t>(size), p);
  format::encode_bytes_column(gens, p);
  format::encode_varint_column(std::span<const uint64_t>(counts), p);
  p.push_back(static_cast<uint8_t>(format::ColumnKind::Edge));
  p.push_back(0);  // an empty edge column
  File f;
  f.begin_block(1);
  f.section(SectionType::Objects, 1, p);
  f.summary().entry.reference_count = uint64_t{1} << 26;
  f.end_block();
  f.finish();
  check_bounded_error(f, ReaderLimits{}, &Recording::read_objects, ErrorCode::CorruptSection, 64 * 1024);
}

TEST_CASE("an index whose count times 152 overflows to its real size", "[hostile][counts]") {
  File f;
  good_block(f, 1);
  // (2^61 + 1) * 152 = 152 (mod 2^64): a count that only a division check catches.
  f.finish(std::nullopt, (uint64_t{1} << 61) + 1);
  ReaderLimits limits;
  limits.max_blocks = UINT64_MAX;  // the default cap (2^24) hides the overflow
  auto r = Recording::from_bytes(f.view(), limits);
  REQUIRE(r.is_ok());
  REQUIRE(r.value()->end() == FileEnd::Corrupt);  // index refused, blocks found by the scan
  REQUIRE(r.value()->gcs().size() == 1);
  // With the default limits the count is above max_blocks: open fails with LimitExceeded (§8.1).
  auto d = Recording::from_bytes(f.view());
  REQUIRE(!d.is_ok());
  REQUIRE(d.error().code == ErrorCode::LimitExceeded);
}

// ---- compression bombs and lying sizes ----

TEST_CASE("a zstd bomb above the section limit is refused before allocating", "[hostile][zstd][memory]") {
  const uint64_t big = uint64_t{256} << 20;
  auto bomb = zero_bomb(big);
  REQUIRE(bomb.size() < 64 * 1024);  // it is a bomb: < 64 KiB stored for 256 MiB
  format::SectionHeader h;
  h.type = static_cast<uint16_t>(SectionType::Roots);
  h.codec = format::Codec::Zstd;
  h.item_count = 1;
  h.stored_size = bomb.size();
  h.decoded_size = big;
  File f = roots_block_with(h, bomb);
  ReaderLimits small;
  small.max_section_decoded_bytes = 64u << 20;
  check_bounded_error(f, small, &Recording::read_roots, ErrorCode::LimitExceeded, 32 * 1024);

  SECTION("within the default limit it decodes to at most its declared size, then fails cleanly") {
    // zeros are not roots columns
    check_bounded_error(f, ReaderLimits{}, &Recording::read_roots, ErrorCode::CorruptSection, (256 + 64) * 1024);
  }
  SECTION("a GC limit below the section sizes is refused too") {
    ReaderLimits gc_small;
    gc_small.max_gc_decoded_bytes = 1u << 20;
    auto rec = open_ok(f, gc_small);
    REQUIRE(code_of(rec->read_roots(0)) == ErrorCode::LimitExceeded);
    REQUIRE(code_of(rec->verify_gc(0)) == ErrorCode::LimitExceeded);
  }
}

TEST_CASE("a decoded size of 8 GiB is refused by the default limits", "[hostile][zstd]") {
  auto frame = zero_bomb(4096);
  format::SectionHeader h;
  h.type = static_cast<uint16_t>(SectionType::Roots);
  h.codec = format::Codec::Zstd;
  h.item_count = 1;
  h.stored_size = frame.size();
  h.decoded_size = uint64_t{8} << 30;
  File f = roots_block_with(h, frame);
  auto rec = open_ok(f);
  REQUIRE(code_of(rec->read_roots(0)) == ErrorCode::LimitExceeded);
}

TEST_CASE("a frame that expands beyond the size its header declares", "[hostile][zstd][memory]") {
  auto bomb = zero_bomb(uint64_t{256} << 20);
  format::SectionHeader h;
  h.type = static_cast<uint16_t>(SectionType::Roots);
  h.codec = format::Codec::Zstd;
  h.item_count = 1;
  h.stored_size = bomb.size();
  h.decoded_size = 4096;  // lies: the frame says 256 MiB
  File f = roots_block_with(h, bomb);
  check_bounded_error(f, ReaderLimits{}, &Recording::read_roots, ErrorCode::DecompressionFailed, 32 * 1024);
}

TEST_CASE("a header declaring 1 GiB over a tiny frame does not allocate 1 GiB", "[hostile][zstd][memory]") {
  auto frame = zero_bomb(100);  // the frame itself says 100 bytes
  format::SectionHeader h;
  h.type = static_cast<uint16_t>(SectionType::Roots);
  h.codec = format::Codec::Zstd;
  h.item_count = 1;
  h.stored_size = frame.size();
  h.decoded_size = uint64_t{1} << 30;  // exactly the default section limit
  File f = roots_block_with(h, frame);
  check_bounded_error(f, ReaderLimits{}, &Recording::read_roots, ErrorCode::DecompressionFailed, 64 * 1024);
}

TEST_CASE("a zstd frame without a content size, or with trailing bytes", "[hostile][zstd]") {
  std::vector<uint8_t> data(1000, 7);
  std::vector<uint8_t> frame(ZSTD_compressBound(data.size()));
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  size_t n = ZSTD_compress2(c, frame.data(), frame.size(), data.data(), data.size());
  ZSTD_freeCCtx(c);
  REQUIRE(!ZSTD_isError(n));
  frame.resize(n);
  format::SectionHeader h;
  h.type = static_cast<uint16_t>(SectionType::Roots);
  h.codec = format::Codec::Zstd;
  h.item_count = 1;
  h.stored_size = frame.size();
  h.decoded_size = data.size();
  {
    File f = roots_block_with(h, frame);
    REQUIRE(code_of(open_ok(f)->read_roots(0)) == ErrorCode::DecompressionFailed);
  }
  auto good = zero_bomb(1000);
  good.push_back(0);  // a byte after the frame
  h.stored_size = good.size();
  File g = roots_block_with(h, good);
  REQUIRE(code_of(open_ok(g)->read_roots(0)) == ErrorCode::DecompressionFailed);
}

// ---- references to objects that do not exist; cycles ----

TEST_CASE("references to objects that do not exist are kept and reported as unresolved", "[hostile][graph]") {
  File f;
  f.begin_block(1);
  std::vector<Obj> objs = {{0x1000, 0, 24, 0, {0x1000 + 8, 0xDEAD0000, 0x2000}}, {0x2000, 0, 24, 0, {0x9999999}}};
  f.section(SectionType::Objects, 2, craft::objects_payload(objs));
  f.summary().entry.reference_count = 4;
  f.section(SectionType::Roots, 2, craft::roots_payload({0x1000, 0x5000}));
  f.end_block();
  f.finish();
  auto rec = open_ok(f);
  REQUIRE(rec->verify_gc(0).is_ok());  // odd, not corrupt: the runtime reported it so
  auto objects = rec->read_objects(0);
  REQUIRE(objects.is_ok());
  REQUIRE(objects->reference_targets == std::vector<uint64_t>{0x1008, 0xDEAD0000, 0x2000, 0x9999999});
  auto roots = rec->read_roots(0);
  REQUIRE(roots.is_ok());
  auto graph = HeapGraph::build(*objects, *roots);
  REQUIRE(graph.is_ok());
  REQUIRE(graph->stats().unresolved_references == 3);
  REQUIRE(graph->stats().unresolved_roots == 1);
  REQUIRE(graph->edge_count() == 1);
}

TEST_CASE("cycles in the object graph: analyses terminate with the right dominators", "[hostile][graph]") {
  // root -> A -> B -> C -> A, and C -> C (self loop).
  File f;
  f.begin_block(1);
  std::vector<Obj> objs = {{0x1000, 0, 24, 0, {0x2000}}, {0x2000, 0, 32, 0, {0x3000}}, {0x3000, 0, 40, 0, {0x1000, 0x3000}}};
  f.section(SectionType::Objects, 3, craft::objects_payload(objs));
  f.summary().entry.reference_count = 4;
  f.section(SectionType::Roots, 1, craft::roots_payload({0x1000}));
  f.end_block();
  f.finish();
  auto rec = open_ok(f);
  REQUIRE(rec->verify_gc(0).is_ok());
  auto objects = rec->read_objects(0);
  auto roots = rec->read_roots(0);
  REQUIRE((objects.is_ok() && roots.is_ok()));
  auto graph = HeapGraph::build(*objects, *roots);
  REQUIRE(graph.is_ok());
  REQUIRE(graph->build_reverse().is_ok());
  auto dom = DominatorTree::compute(*graph);
  REQUIRE(dom.is_ok());
  REQUIRE(dom->immediate_dominator(0) == kVirtualRoot);
  REQUIRE(dom->immediate_dominator(1) == 0);
  REQUIRE(dom->immediate_dominator(2) == 1);
  REQUIRE(dom->retained_size(0) == 24 + 32 + 40);
}

// ---- duplicate ids ----

TEST_CASE("two objects at one address", "[hostile][duplicates]") {
  SECTION("in two chunks") {
    File f;
    f.begin_block(1);
    std::vector<Obj> a = {{0x1000, 0, 24, 0, {}}}, b = {{0x1000, 0, 32, 0, {}}};
    f.section(SectionType::Objects, 1, craft::objects_payload(a));
    f.section(SectionType::Objects, 1, craft::objects_payload(b));
    f.end_block();
    f.finish();
    auto rec = open_ok(f);
    REQUIRE(code_of(rec->read_objects(0)) == ErrorCode::InconsistentData);
    REQUIRE(code_of(rec->verify_gc(0)) == ErrorCode::InconsistentData);
  }
  SECTION("in one chunk") {
    File f;
    f.begin_block(1);
    std::vector<Obj> a = {{0x1000, 0, 24, 0, {}}, {0x1000, 0, 24, 0, {}}};
    f.section(SectionType::Objects, 2, craft::objects_payload(a));
    f.end_block();
    f.finish();
    REQUIRE(code_of(open_ok(f)->read_objects(0)) == ErrorCode::InconsistentData);
  }
}

TEST_CASE("a type id or method declared twice", "[hostile][duplicates]") {
  File f;
  f.begin_block(1);
  f.section(SectionType::Types, 1, craft::types_payload({{1, "A", ""}}));
  f.section(SectionType::Methods, 1, craft::methods_payload({{0x77, "M.Run"}}));
  f.end_block();
  f.begin_block(2);
  f.section(SectionType::Types, 1, craft::types_payload({{1, "A again", ""}}));
  f.end_block();
  f.begin_block(3);
  f.section(SectionType::Methods, 1, craft::methods_payload({{0x77, "M.Run again"}}));
  f.end_block();
  f.finish();
  auto rec = open_ok(f);
  REQUIRE(rec->read_names(0).is_ok());
  REQUIRE(rec->read_block_names(1).is_ok());  // alone, block 2 is fine
  REQUIRE(code_of(rec->read_names(1)) == ErrorCode::InconsistentData);
  REQUIRE(code_of(rec->read_names(2)) == ErrorCode::InconsistentData);
  // Also within one section.
  File g;
  g.begin_block(1);
  g.section(SectionType::Types, 2, craft::types_payload({{3, "A", ""}, {3, "B", ""}}));
  g.end_block();
  g.finish();
  REQUIRE(code_of(open_ok(g)->read_names(0)) == ErrorCode::InconsistentData);
}

TEST_CASE("duplicate GC numbers", "[hostile][duplicates]") {
  // The reader must never present two GCs with one number as valid: either it does not list
  // the second, or verify_gc refuses it.
  auto check_listing = [](const Recording& rec) {
    REQUIRE(!rec.gcs().empty());
    for (size_t i = 1; i < rec.gcs().size(); ++i)
      if (rec.gcs()[i].info.gc_number <= rec.gcs()[i - 1].info.gc_number)
        REQUIRE(code_of(rec.verify_gc(i)) == ErrorCode::InconsistentData);
  };
  File f;
  good_block(f, 1);
  good_block(f, 1, 0x20000);
  SECTION("through the index: the index is refused, the scan lists the blocks") {
    f.finish();
    auto rec = open_ok(f);
    REQUIRE(rec->end() == FileEnd::Corrupt);
    REQUIRE(rec->end_error().code != ErrorCode::Ok);
    check_listing(*rec);
  }
  SECTION("without an index") { check_listing(*open_ok(f)); }
}

// ---- unsorted or overlapping ranges ----

TEST_CASE("object chunks out of order are presented in address order", "[hostile][order]") {
  File f;
  f.begin_block(1);
  std::vector<Obj> hi = {{0x9000, 0, 24, 0, {0x1000}}, {0x9100, 0, 24, 0, {}}};
  std::vector<Obj> lo = {{0x1000, 0, 24, 2, {0x9000, 0x9100}}};
  f.section(SectionType::Objects, 2, craft::objects_payload(hi));
  f.section(SectionType::Objects, 1, craft::objects_payload(lo));
  f.summary().entry.reference_count = 3;
  f.end_block();
  f.finish();
  auto rec = open_ok(f);
  REQUIRE(rec->verify_gc(0).is_ok());
  auto t = rec->read_objects(0);
  REQUIRE(t.is_ok());
  REQUIRE(t->addresses == std::vector<uint64_t>{0x1000, 0x9000, 0x9100});
  REQUIRE(t->generations[0] == Generation::Gen2);
  REQUIRE(t->reference_offsets == std::vector<uint64_t>{0, 2, 3, 3});
  REQUIRE(t->reference_targets == std::vector<uint64_t>{0x9000, 0x9100, 0x1000});
}

TEST_CASE("an unsorted address column inside one chunk (delta-zigzag) is sorted too", "[hostile][order]") {
  File f;
  f.begin_block(1);
  // objects_payload keeps the given order, so the address column is delta-zigzag.
  std::vector<Obj> objs = {{0x3000, 0, 24, 0, {0x1000}}, {0x1000, 0, 24, 0, {}}, {0x2000, 0, 24, 0, {0x3000}}};
  f.section(SectionType::Objects, 3, craft::objects_payload(objs));
  f.summary().entry.reference_count = 2;
  f.end_block();
  f.finish();
  auto rec = open_ok(f);
  REQUIRE(rec->verify_gc(0).is_ok());
  auto t = rec->read_objects(0);
  REQUIRE(t.is_ok());
  REQUIRE(t->addresses == std::vector<uint64_t>{0x1000, 0x2000, 0x3000});
  REQUIRE(t->reference_targets == std::vector<uint64_t>{0x3000, 0x1000});
  REQUIRE(t->reference_offsets == std::vector<uint64_t>{0, 0, 1, 2});
}

TEST_CASE("surviving and moved ranges: unsorted and overlapping kept as reported, overflow refused",
          "[hostile][order]") {
  File f;
  f.begin_block(1, SnapshotTrigger::None);
  f.section(SectionType::SurvivingRanges, 3, craft::ranges_payload({0x5000, 0x1000, 0x1800}, {0x100, 0x1000, 0x100}));
  f.end_block();
  f.begin_block(2, SnapshotTrigger::None);
  f.section(SectionType::SurvivingRanges, 1, craft::ranges_payload({UINT64_MAX - 0x10}, {0x100}));
  f.end_block();
  f.finish();
  auto rec = open_ok(f);
  REQUIRE(rec->verify_gc(0).is_ok());
  auto r = rec->read_ranges(0);
  REQUIRE(r.is_ok());
  REQUIRE(r->surviving_starts == std::vector<uint64_t>{0x5000, 0x1000, 0x1800});
  REQUIRE(code_of(rec->read_ranges(1)) == ErrorCode::CorruptSection);
  REQUIRE(code_of(rec->verify_gc(1)) == ErrorCode::CorruptSection);
}

TEST_CASE("overlapping or unordered index entries", "[hostile][order]") {
  File f;
  good_block(f, 1);
  good_block(f, 2, 0x20000);
  auto swapped = f.blocks;
  std::swap(swapped[0], swapped[1]);
  File g = f;
  f.finish(swapped);
  auto rec = open_ok(f);
  REQUIRE(rec->end() == FileEnd::Corrupt);
  REQUIRE(rec->gcs().size() == 2);
  REQUIRE(rec->gcs()[0].info.gc_number == 1);  // from the scan, in file order

  auto overlap = g.blocks;
  overlap[1].entry.block_offset = overlap[0].entry.block_offset + 8;
  g.finish(overlap);
  auto rec2 = open_ok(g);
  REQUIRE(rec2->end() == FileEnd::Corrupt);
  REQUIRE(rec2->gcs().size() == 2);
}

// ---- a type table that lies ----

TEST_CASE("a type table that lies", "[hostile][types]") {
  auto block_with_types = [](std::vector<uint8_t> payload, uint64_t items, uint32_t object_type) {
    File f;
    f.begin_block(1);
    f.section(SectionType::Types, items, payload);
    std::vector<Obj> objs = {{0x1000, object_type, 24, 0, {}}};
    f.section(SectionType::Objects, 1, craft::objects_payload(objs));
    f.end_block();
    f.finish();
    return f;
  };
  SECTION("name lengths add up to more than the names column") {
    auto f = block_with_types(craft::types_payload({{1, "Abc", ""}}, std::vector<uint64_t>{300}), 1, 1);
    auto rec = open_ok(f);
    REQUIRE(code_of(rec->read_names(0)) == ErrorCode::CorruptSection);
    REQUIRE(code_of(rec->verify_gc(0)) == ErrorCode::CorruptSection);
  }
  SECTION("name lengths add up to less than the names column") {
    auto f = block_with_types(craft::types_payload({{1, "Abc", ""}}, std::vector<uint64_t>{1}), 1, 1);
    REQUIRE(code_of(open_ok(f)->read_names(0)) == ErrorCode::CorruptSection);
  }
  SECTION("a name length that overflows when summed") {
    auto f = block_with_types(craft::types_payload({{1, "A", ""}, {2, "B", ""}}, std::vector<uint64_t>{UINT64_MAX, 2}), 2, 1);
    auto code = code_of(open_ok(f)->read_names(0));
    REQUIRE(code == ErrorCode::LimitExceeded);  // each length is capped by max_name_bytes first
  }
  SECTION("a name longer than max_name_bytes") {
    std::string long_name(100, 'x');
    auto f = block_with_types(craft::types_payload({{1, long_name, ""}}), 1, 1);
    ReaderLimits limits;
    limits.max_name_bytes = 64;
    REQUIRE(code_of(open_ok(f, limits)->read_names(0)) == ErrorCode::LimitExceeded);
    REQUIRE(open_ok(f)->read_names(0).is_ok());
  }
  SECTION("type id 0 or above 2^32") {
    auto f = block_with_types(craft::types_payload({{0, "Zero", ""}}), 1, 0);
    REQUIRE(code_of(open_ok(f)->read_names(0)) == ErrorCode::CorruptSection);
    auto g = block_with_types(craft::types_payload({{uint64_t{1} << 32, "Big", ""}}), 1, 0);
    REQUIRE(code_of(open_ok(g)->read_names(0)) == ErrorCode::CorruptSection);
  }
  SECTION("an object of an undeclared type: read works, verify says so") {
    auto f = block_with_types(craft::types_payload({{1, "A", ""}}), 1, 7);
    auto rec = open_ok(f);
    auto objs = rec->read_objects(0);
    REQUIRE(objs.is_ok());
    auto names = rec->read_names(0);
    REQUIRE(names.is_ok());
    REQUIRE(names->type_name(7) == "<undeclared type>");
    REQUIRE(code_of(rec->verify_gc(0)) == ErrorCode::InconsistentData);
  }
  SECTION("a type count that disagrees with the block end") {
    File f;
    f.begin_block(1);
    f.section(SectionType::Types, 1, craft::types_payload({{1, "A", ""}}));
    auto s = f.summary();
    s.entry.new_type_count = 2;
    f.end_block(s);
    f.finish();
    REQUIRE(code_of(open_ok(f)->read_names(0)) == ErrorCode::InconsistentData);
  }
}

// Hidden: writes the crafted hostile files as fuzz_open regression inputs
// (GCSNAP_WRITE_REGRESSIONS=DIR reliability_tests "[.write-regressions]").
TEST_CASE("write hostile files as regression inputs", "[.write-regressions]") {
  const char* dir = std::getenv("GCSNAP_WRITE_REGRESSIONS");
  REQUIRE(dir != nullptr);
  auto save = [&](const std::string& name, const File& f) {
    FILE* out = std::fopen((std::string(dir) + "/" + name).c_str(), "wb");
    REQUIRE(out != nullptr);
    std::fwrite(f.bytes.data(), 1, f.bytes.size(), out);
    std::fclose(out);
  };
  {
    std::vector<uint8_t> p;
    std::vector<uint64_t> addr = {0x1000}, type = {0}, size = {24}, counts = {0xFFFFFFFFull};
    std::vector<uint8_t> gens = {0};
    format::encode_delta_column(addr, p);
    format::encode_varint_column(std::span<const uint64_t>(type), p);
    format::encode_varint_column(std::span<const uint64_t>(size), p);
    format::encode_bytes_column(gens, p);
    format::encode_varint_column(std::span<const uint64_t>(counts), p);
    p.push_back(static_cast<uint8_t>(format::ColumnKind::Edge));
    p.push_back(0);
    File f;
    f.begin_block(1);
    f.section(SectionType::Objects, 1, p);
    f.summary().entry.reference_count = 0xFFFFFFFFull;
    f.end_block();
    f.finish();
    save("objects-refcount-bomb-4g.bin", f);
  }
  {
    File f;
    good_block(f, 1);
    f.finish(std::nullopt, (uint64_t{1} << 61) + 1);
    save("index-count-times-152-wraps.bin", f);
  }
  {
    auto frame = zero_bomb(100);
    format::SectionHeader h;
    h.type = static_cast<uint16_t>(SectionType::Roots);
    h.codec = format::Codec::Zstd;
    h.item_count = 1;
    h.stored_size = frame.size();
    h.decoded_size = 48u << 20;  // under fuzz_open's 64 MiB cap
    save("zstd-header-size-lies-48m.bin", roots_block_with(h, frame));
  }
}
