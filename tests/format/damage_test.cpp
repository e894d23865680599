// Damaged files: a recording cut at every byte and with every single bit flipped must give
// either a clean error or the right answer, never a crash or a wrong answer (format-spec.md §8).
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "format/format_constants.hpp"
#include "format/gc_summary.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

struct Sample {
  std::vector<ModelGc> model;
  std::vector<std::byte> bytes;
};

Sample make_sample(uint64_t seed, size_t gcs, size_t objects, uint64_t chunk_items) {
  ModelOptions mo;
  mo.max_objects = objects;
  mo.max_roots = 6;
  Sample s;
  s.model = make_random_gcs(seed, gcs, mo);
  const std::string path = temp_path("damage-" + std::to_string(seed));
  WriterOptions wo;
  wo.chunk_items = chunk_items;
  wo.background_compression = false;
  REQUIRE(write_model(path, s.model, wo).is_ok());
  s.bytes = read_file_bytes(path);
  std::remove(path.c_str());
  return s;
}

bool entries_match(const Recording& rec, const std::vector<ModelGc>& model) {
  if (rec.gcs().size() > model.size()) return false;
  for (size_t i = 0; i < rec.gcs().size(); ++i)
    if (rec.gcs()[i].info.gc_number != model[i].info.gc_number) return false;
  return true;
}

}  // namespace

TEST_CASE("a recording cut at every byte keeps every complete GC") {
  Sample s = make_sample(7, 4, 12, 5);
  auto full = Recording::from_bytes(s.bytes);
  REQUIRE(full);
  REQUIRE((*full)->gcs().size() == 4);
  std::vector<uint64_t> block_ends;
  for (const auto& e : (*full)->gcs()) block_ends.push_back(e.block_offset + e.block_size);
  const uint64_t index_start = block_ends.back();
  size_t opened = 0;
  for (size_t cut = 0; cut <= s.bytes.size(); ++cut) {
    INFO("cut at " << cut);
    auto rec = Recording::from_bytes({s.bytes.data(), cut});
    if (cut < format::kFileHeaderSize) {
      REQUIRE_FALSE(rec);
      CHECK((rec.error().code == ErrorCode::Truncated || rec.error().code == ErrorCode::NotAGcsnapFile));
      continue;
    }
    REQUIRE(rec);
    ++opened;
    size_t complete = 0;
    while (complete < block_ends.size() && block_ends[complete] <= cut) ++complete;
    const Recording& r = **rec;
    CHECK(r.gcs().size() == complete);
    CHECK(compare_with_model(r, s.model, complete) == "");
    FileEnd want = FileEnd::Truncated;
    if (cut == s.bytes.size()) want = FileEnd::Complete;
    else if (cut == format::kFileHeaderSize || cut == s.bytes.size() - format::kTrailerSize ||
             std::find(block_ends.begin(), block_ends.end(), cut) != block_ends.end())
      want = FileEnd::NoIndex;
    CHECK(r.end() == want);
    if (want == FileEnd::Truncated) {
      CHECK(r.end_error().code == ErrorCode::Truncated);
      // The first byte not part of a complete block (or of the complete index, when only the
      // trailer is cut).
      if (cut < index_start) CHECK(r.end_offset() == (complete ? block_ends[complete - 1] : format::kFileHeaderSize));
      else CHECK(r.end_offset() >= index_start);
      CHECK(r.end_offset() <= cut);
    }
    for (size_t i = 0; i < r.gcs().size(); ++i) CHECK(r.verify_gc(i).is_ok());
  }
  CHECK(opened == s.bytes.size() + 1 - format::kFileHeaderSize);
  CHECK(index_start < s.bytes.size());
}

TEST_CASE("a recording cut at every block boundary without its index") {
  Sample s = make_sample(11, 6, 30, 8);
  auto full = Recording::from_bytes(s.bytes);
  REQUIRE(full);
  for (size_t i = 0; i < (*full)->gcs().size(); ++i) {
    const auto& e = (*full)->gcs()[i];
    for (uint64_t cut : {e.block_offset, e.block_offset + e.block_size, e.block_offset + e.block_size - 1}) {
      auto rec = Recording::from_bytes({s.bytes.data(), static_cast<size_t>(cut)});
      REQUIRE(rec);
      size_t complete = cut == e.block_offset + e.block_size ? i + 1 : i;
      CHECK((*rec)->gcs().size() == complete);
      CHECK(compare_with_model(**rec, s.model, complete) == "");
      CHECK((*rec)->end() == (cut == e.block_offset + e.block_size || cut == e.block_offset ? FileEnd::NoIndex
                                                                                           : FileEnd::Truncated));
    }
  }
}

TEST_CASE("every single-bit flip gives an error or the right answer") {
  Sample s = make_sample(3, 3, 8, 4);
  REQUIRE(s.bytes.size() < 4000);
  size_t open_errors = 0, read_errors = 0, clean = 0;
  for (size_t bit = 0; bit < s.bytes.size() * 8; ++bit) {
    std::vector<std::byte> bytes = s.bytes;
    bytes[bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
    INFO("bit " << bit << " (byte 0x" << std::hex << bit / 8 << ")");
    auto rec = Recording::from_bytes(bytes);
    if (!rec) {
      CHECK(rec.error().code != ErrorCode::Ok);
      ++open_errors;
      continue;
    }
    const Recording& r = **rec;
    REQUIRE(entries_match(r, s.model));
    // Whatever was listed must either decode to the truth or fail with an error.
    CHECK(compare_with_model(r, s.model, r.gcs().size(), true) == "");
    bool all_ok = r.gcs().size() == s.model.size() && r.end() == FileEnd::Complete;
    for (size_t i = 0; i < r.gcs().size(); ++i) all_ok = r.verify_gc(i).is_ok() && all_ok;
    if (all_ok) ++clean;
    else ++read_errors;
  }
  INFO("open errors " << open_errors << ", read errors " << read_errors << ", clean " << clean);
  CHECK(open_errors > 0);
  CHECK(read_errors > 0);
  // A flip is silently harmless only where the format ignores bits (none in 1.0 except
  // flags bits 1-7 and the optional-feature bits, which are checksummed too).
  CHECK(clean == 0);
}
