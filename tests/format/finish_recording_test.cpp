// finish_recording (format-spec.md §8.4): a file whose writer died gets the index and trailer
// of its complete blocks, so it opens complete and verifies, with every complete GC intact;
// complete files and damaged files are never changed.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "format/format_constants.hpp"
#include "gcsnap/finish_recording.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

void write_bytes(const std::string& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

struct Sample {
  std::vector<ModelGc> model;
  std::vector<std::byte> bytes;
  std::vector<uint64_t> block_ends;  ///< where each complete block ends
};

Sample make_sample(uint64_t seed, size_t gcs) {
  ModelOptions mo;
  mo.max_objects = 12;
  mo.max_roots = 6;
  Sample s;
  s.model = make_random_gcs(seed, gcs, mo);
  const std::string path = temp_path("finish-src-" + std::to_string(seed));
  WriterOptions wo;
  wo.chunk_items = 5;  // several chunk sections per column: cuts land inside blocks often
  wo.background_compression = false;
  REQUIRE(write_model(path, s.model, wo).is_ok());
  s.bytes = read_file_bytes(path);
  std::remove(path.c_str());
  auto rec = Recording::from_bytes(s.bytes);
  REQUIRE(rec);
  for (const auto& e : (*rec)->gcs()) s.block_ends.push_back(e.block_offset + e.block_size);
  return s;
}

/// Every GC of the file at PATH passes verify_gc, and it ends complete.
void require_sound(const std::string& path, const Sample& s, size_t complete) {
  auto rec = Recording::open(path);
  REQUIRE(rec);
  const Recording& r = **rec;
  CHECK(r.end() == FileEnd::Complete);
  REQUIRE(r.gcs().size() == complete);
  CHECK(compare_with_model(r, s.model, complete) == "");
  for (size_t i = 0; i < r.gcs().size(); ++i) CHECK(r.verify_gc(i).is_ok());
}

}  // namespace

TEST_CASE("finish_recording completes a file cut anywhere after its header") {
  Sample s = make_sample(11, 4);
  const std::string path = temp_path("finish-cut");
  const uint64_t size = s.bytes.size();
  size_t truncated = 0, no_index = 0;
  // Every 11th byte, and each block's end, the bytes around it, and the index's end.
  std::set<uint64_t> cuts = {format::kFileHeaderSize, size - format::kTrailerSize, size - 1};
  for (uint64_t cut = format::kFileHeaderSize; cut < size; cut += 11) cuts.insert(cut);
  for (uint64_t end : s.block_ends) cuts.insert({end - 1, end, end + 1});
  for (uint64_t cut : cuts) {
    INFO("cut at " << cut);
    write_bytes(path, {s.bytes.data(), static_cast<size_t>(cut)});
    size_t complete = 0;
    while (complete < s.block_ends.size() && s.block_ends[complete] <= cut) ++complete;
    const uint64_t keep = complete ? s.block_ends[complete - 1] : format::kFileHeaderSize;
    auto report = finish_recording(path);
    REQUIRE(report);
    CHECK(report->gcs == complete);
    CHECK(report->bytes_dropped == cut - keep);
    CHECK(report->found == (cut == keep || cut == size - format::kTrailerSize ? FileEnd::NoIndex : FileEnd::Truncated));
    (report->found == FileEnd::NoIndex ? no_index : truncated)++;
    require_sound(path, s, complete);
    // A second call finds the file complete and changes nothing.
    auto before = read_file_bytes(path);
    auto again = finish_recording(path);
    REQUIRE(again);
    CHECK(again->found == FileEnd::Complete);
    CHECK(again->gcs == complete);
    CHECK(again->bytes_dropped == 0);
    CHECK(read_file_bytes(path) == before);
  }
  CHECK(truncated > 10);
  CHECK(no_index >= 1);
  std::remove(path.c_str());
}

TEST_CASE("finish_recording of an index-less file gives the bytes a writer's close() gives") {
  Sample s = make_sample(12, 3);
  const std::string path = temp_path("finish-noindex");
  // What a writer killed right after its last end_gc leaves: every block, no index.
  write_bytes(path, {s.bytes.data(), static_cast<size_t>(s.block_ends.back())});
  auto report = finish_recording(path);
  REQUIRE(report);
  CHECK(report->found == FileEnd::NoIndex);
  CHECK(report->gcs == 3);
  CHECK(report->bytes_dropped == 0);
  CHECK(read_file_bytes(path) == s.bytes);
  std::remove(path.c_str());
}

TEST_CASE("finish_recording leaves a complete file as it is") {
  Sample s = make_sample(13, 2);
  const std::string path = temp_path("finish-complete");
  write_bytes(path, s.bytes);
  auto report = finish_recording(path);
  REQUIRE(report);
  CHECK(report->found == FileEnd::Complete);
  CHECK(report->gcs == 2);
  CHECK(read_file_bytes(path) == s.bytes);
  std::remove(path.c_str());
}

TEST_CASE("finish_recording rewrites an index the trailer points at but that fails its checks") {
  Sample s = make_sample(14, 3);
  const std::string path = temp_path("finish-badindex");
  auto bytes = s.bytes;
  // The index section's payload starts right after its header, after the last block.
  bytes[static_cast<size_t>(s.block_ends.back()) + format::kSectionHeaderSize] ^= std::byte{0x40};
  write_bytes(path, bytes);
  REQUIRE((*Recording::open(path))->end() == FileEnd::Corrupt);
  auto report = finish_recording(path);
  REQUIRE(report);
  CHECK(report->found == FileEnd::Corrupt);
  CHECK(report->gcs == 3);
  CHECK(read_file_bytes(path) == s.bytes);
  std::remove(path.c_str());
}

TEST_CASE("finish_recording refuses damaged and foreign files and changes nothing") {
  Sample s = make_sample(15, 3);
  const std::string path = temp_path("finish-damaged");
  SECTION("a section header damaged inside the second block") {
    auto bytes = std::vector<std::byte>(s.bytes.begin(), s.bytes.begin() + static_cast<long>(s.block_ends.back()));
    bytes[static_cast<size_t>(s.block_ends[0]) + 2] ^= std::byte{0x01};  // the block start's header type
    write_bytes(path, bytes);
    auto report = finish_recording(path);
    REQUIRE_FALSE(report);
    CHECK(report.error().code != ErrorCode::Ok);
    CHECK(read_file_bytes(path) == bytes);
  }
  SECTION("not a recording") {
    std::vector<std::byte> text(100, std::byte{'x'});
    write_bytes(path, text);
    auto report = finish_recording(path);
    REQUIRE_FALSE(report);
    CHECK(report.error().code == ErrorCode::NotAGcsnapFile);
    CHECK(read_file_bytes(path) == text);
  }
  SECTION("shorter than the file header") {
    write_bytes(path, {s.bytes.data(), 10});
    auto report = finish_recording(path);
    REQUIRE_FALSE(report);
    CHECK(report.error().code == ErrorCode::Truncated);
  }
  SECTION("no such file") {
    std::remove(path.c_str());
    auto report = finish_recording(path);
    REQUIRE_FALSE(report);
    CHECK(report.error().code == ErrorCode::IoError);
  }
  std::remove(path.c_str());
}

TEST_CASE("finish_recording that cannot write the index leaves the file ending after its last complete GC") {
  Sample s = make_sample(16, 3);
  const std::string path = temp_path("finish-nospace");
  const uint64_t keep = s.block_ends[1];
  write_bytes(path, {s.bytes.data(), static_cast<size_t>(keep + 100)});  // a partial third GC
  // In a child: a file size limit just past the kept blocks makes the index's write fail
  // (EFBIG, as a full disk gives ENOSPC).
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{static_cast<rlim_t>(keep + 8), static_cast<rlim_t>(keep + 8)};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    auto report = finish_recording(path);
    ::_exit(!report && report.error().code == ErrorCode::IoError ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  auto bytes = read_file_bytes(path);
  CHECK(bytes.size() == keep);
  auto rec = Recording::open(path);
  REQUIRE(rec);
  CHECK((*rec)->end() == FileEnd::NoIndex);
  CHECK((*rec)->gcs().size() == 2);
  // With room again, it finishes.
  auto report = finish_recording(path);
  REQUIRE(report);
  require_sound(path, s, 2);
  std::remove(path.c_str());
}
