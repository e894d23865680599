// A size-capped recording (WriterOptions::max_file_bytes, format-spec.md §6.17): the oldest
// walks are dropped in place, the file stays readable through the index, by a scan, by verify
// and when cut short, and hostile dropped headers are errors. POSIX: it measures st_blocks.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <gcsnap/gcsnap.hpp>

#include "format/byte_io.hpp"
#include "format/format_constants.hpp"
#include "format/section.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
namespace fmtns = gcsnap::format;

namespace {

uint64_t disk_usage(const std::string& path) {
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<uint64_t>(st.st_blocks) * 512u;
}

std::unique_ptr<Recording> open_bytes(const std::vector<std::byte>& bytes) {
  auto rec = Recording::from_bytes(bytes);
  REQUIRE(rec);
  return std::move(rec).value();
}

struct Found {
  size_t offset = 0;
  fmtns::SectionHeader header;
};

std::vector<Found> list_sections(const std::vector<std::byte>& file) {
  std::vector<Found> out;
  const auto* p = reinterpret_cast<const uint8_t*>(file.data());
  size_t pos = fmtns::kFileHeaderSize;
  while (pos + fmtns::kSectionHeaderSize <= file.size()) {
    auto h = fmtns::decode_section_header({p + pos, file.size() - pos}, pos);
    if (!h) break;
    out.push_back({pos, *h});
    pos += fmtns::kSectionHeaderSize + h->stored_size;
  }
  return out;
}

void rewrite(std::vector<std::byte>& file, const Found& f, const fmtns::SectionHeader& h) {
  fmtns::encode_section_header(h, reinterpret_cast<uint8_t*>(file.data()) + f.offset);
}

// A model whose walks (at about three GCs in four) are a few hundred KiB each on disk.
std::vector<test::ModelGc> walked_model() {
  test::ModelOptions opt;
  opt.max_objects = 40000;
  return test::make_random_gcs(4711, 14, opt);
}

}  // namespace

TEST_CASE("a size cap drops the oldest walks, keeps every GC, and the file reads every way") {
  const auto model = walked_model();
  size_t walks = 0;
  for (const auto& gc : model) walks += gc.info.trigger != SnapshotTrigger::None ? 1 : 0;
  REQUIRE(walks >= 6);

  // Uncapped first: what the recording costs, and how large a walk is.
  test::TempFile full("walk-drop-full");
  REQUIRE(test::write_model(full.path(), model, WriterOptions{}).is_ok());
  const uint64_t full_disk = disk_usage(full.path());

  test::TempFile capped("walk-drop-capped");
  WriterOptions options;
  options.max_file_bytes = full_disk / 3;
  std::unique_ptr<Writer> open_writer;
  REQUIRE(test::write_model(capped.path(), model, options, &open_writer).is_ok());
  const WriterStats stats = open_writer->stats();
  REQUIRE(open_writer->close().is_ok());
  REQUIRE_FALSE(stats.drop_unsupported);  // the build machine's file system punches holes
  CHECK(stats.walks_dropped > 0);
  // Slack: the index and trailer written at close, and the file system's block rounding of the
  // sections at each end of a hole (two 4 KiB blocks per dropped section at most).
  const uint64_t disk = disk_usage(capped.path());
  CAPTURE(full_disk, disk, options.max_file_bytes);
  CHECK(disk <= options.max_file_bytes + (64u << 10));

  auto bytes = test::read_file_bytes(capped.path());
  auto rec = open_bytes(bytes);
  REQUIRE(rec->gcs().size() == model.size());
  CHECK(rec->end() == FileEnd::Complete);
  CHECK(rec->minor_version() == 5);
  // The dropped walks are the oldest ones: once a walk is kept, every later one is too.
  bool kept_seen = false;
  uint64_t dropped = 0, freed = 0;
  for (size_t i = 0; i < model.size(); ++i) {
    const GcEntry& e = rec->gcs()[i];
    CAPTURE(i);
    if (model[i].info.trigger == SnapshotTrigger::None) {
      CHECK_FALSE(e.walk_dropped());
      continue;
    }
    if (e.walk_dropped()) {
      CHECK_FALSE(kept_seen);
      CHECK_FALSE(e.has_heap_walk());
      ++dropped;
      freed += e.dropped_bytes;
      CHECK(rec->read_objects(i).error().code == ErrorCode::WalkDropped);
      CHECK(rec->read_dependent_handles(i).error().code == ErrorCode::WalkDropped);
      // What identity across GCs needs is all still there.
      auto roots = rec->read_roots(i);
      REQUIRE(roots);
      CHECK(roots->object_ids == model[i].roots.object_ids);
      CHECK(e.object_count == model[i].objects.size());
    } else {
      kept_seen = true;
    }
    CHECK(rec->verify_gc(i).is_ok());
  }
  CHECK(dropped == stats.walks_dropped);
  CHECK(kept_seen);  // the newest walk fits alone
  CHECK(freed > 0);
  // Kept walks read exactly as written; dropped ones fail rather than read wrong.
  CHECK(test::compare_with_model(*rec, model, model.size(), true) == "");
  auto names = rec->read_names(model.size() - 1);
  REQUIRE(names);  // type tables are cumulative across dropped blocks

  SECTION("a scan without the index finds the same GCs and the same dropped walks") {
    auto it = list_sections(bytes);
    size_t index_at = 0;
    for (const auto& f : it)
      if (f.header.type == static_cast<uint16_t>(fmtns::SectionType::Index)) index_at = f.offset;
    REQUIRE(index_at > 0);
    std::vector<std::byte> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(index_at));
    auto scanned = open_bytes(cut);
    CHECK(scanned->end() == FileEnd::NoIndex);
    REQUIRE(scanned->gcs().size() == model.size());
    for (size_t i = 0; i < model.size(); ++i) {
      CHECK(scanned->gcs()[i].dropped_sections == rec->gcs()[i].dropped_sections);
      CHECK(scanned->gcs()[i].dropped_bytes == rec->gcs()[i].dropped_bytes);
      CHECK(scanned->verify_gc(i).is_ok());
    }
    // Cut inside the last block: every GC before it stays, dropped or not.
    std::vector<std::byte> truncated(cut.begin(), cut.end() - 100);
    auto partial = open_bytes(truncated);
    CHECK(partial->end() == FileEnd::Truncated);
    REQUIRE(partial->gcs().size() == model.size() - 1);
    for (size_t i = 0; i + 1 < model.size(); ++i) CHECK(partial->gcs()[i].walk_dropped() == rec->gcs()[i].walk_dropped());
  }

  SECTION("a dropped header where it cannot be is an error, never a wrong answer") {
    auto all = list_sections(bytes);
    const Found* dropped_section = nullptr;
    const Found* roots = nullptr;
    for (const auto& f : all) {
      if (!dropped_section && f.header.type == static_cast<uint16_t>(fmtns::SectionType::Dropped)) dropped_section = &f;
      if (!roots && f.header.type == static_cast<uint16_t>(fmtns::SectionType::Roots)) roots = &f;
    }
    REQUIRE(dropped_section);
    REQUIRE(roots);
    // A dropped section that claims to have replaced roots.
    auto b = bytes;
    fmtns::SectionHeader h = dropped_section->header;
    h.item_count = static_cast<uint16_t>(fmtns::SectionType::Roots);
    rewrite(b, *dropped_section, h);
    auto r1 = open_bytes(b);
    bool failed = false;
    for (size_t i = 0; i < r1->gcs().size(); ++i)
      if (!r1->verify_gc(i).is_ok()) {
        CHECK(r1->verify_gc(i).code() == ErrorCode::CorruptSection);
        failed = true;
      }
    CHECK(failed);
    // The must-understand flag or a zstd codec on a dropped section.
    b = bytes;
    h = dropped_section->header;
    h.flags = 1;
    rewrite(b, *dropped_section, h);
    auto r2 = open_bytes(b);
    failed = false;
    for (size_t i = 0; i < r2->gcs().size(); ++i) failed = failed || r2->verify_gc(i).code() == ErrorCode::CorruptSection;
    CHECK(failed);
    // Roots turned into a dropped section: in a GC without a walk it is inconsistent; in one
    // with a walk the walk reads as dropped, the roots section count disagrees.
    b = bytes;
    h = roots->header;
    h.type = static_cast<uint16_t>(fmtns::SectionType::Dropped);
    h.item_count = static_cast<uint16_t>(fmtns::SectionType::Objects);
    h.codec = fmtns::Codec::Raw;
    h.decoded_size = h.stored_size;
    h.payload_checksum = 0;
    rewrite(b, *roots, h);
    auto r3 = open_bytes(b);
    REQUIRE(r3->gcs().size() == model.size());
    auto s = r3->verify_gc(0);
    CHECK_FALSE(s.is_ok());
    CHECK((s.code() == ErrorCode::InconsistentData || s.code() == ErrorCode::CorruptSection));
  }
}

TEST_CASE("without a cap nothing is dropped and the file is the uncapped writer's") {
  auto model = test::make_random_gcs(99, 5);
  test::TempFile a("walk-drop-off-a"), b("walk-drop-off-b");
  WriterOptions huge;
  huge.max_file_bytes = 1ull << 40;
  REQUIRE(test::write_model(a.path(), model, WriterOptions{}).is_ok());
  REQUIRE(test::write_model(b.path(), model, huge).is_ok());
  CHECK(test::read_file_bytes(a.path()) == test::read_file_bytes(b.path()));
}
