// finish_recording (format-spec.md §8.4): a file whose writer died gets the index and trailer
// of its complete blocks, so it opens complete and verifies, with every complete GC intact;
// complete files and damaged files are never changed.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "finish_sample.hpp"
#include "format/format_constants.hpp"
#include "gcsnap/finish_recording.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

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
