// Hostile input: bytes changed by someone who also rewrote the checksums. Nothing may crash,
// hang or read out of bounds; every call returns a value or an error (format-spec.md §8.3).
// Run under -DGCSNAP_SANITIZE=ON to catch memory errors.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "format/byte_io.hpp"
#include "format/format_constants.hpp"
#include "format/section.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

struct Found {
  size_t offset;
  format::SectionHeader header;
};

std::vector<Found> list_sections(const std::vector<uint8_t>& b) {
  std::vector<Found> out;
  size_t pos = format::kFileHeaderSize;
  while (pos + format::kSectionHeaderSize <= b.size()) {
    auto h = format::decode_section_header({b.data() + pos, b.size() - pos}, pos);
    if (!h) break;
    out.push_back({pos, *h});
    pos += format::kSectionHeaderSize + h->stored_size;
  }
  return out;
}

void reseal(std::vector<uint8_t>& b, const Found& f, format::SectionHeader h) {
  if (h.stored_size <= b.size() - f.offset - format::kSectionHeaderSize)
    h.payload_checksum = format::checksum64({b.data() + f.offset + format::kSectionHeaderSize, h.stored_size});
  format::encode_section_header(h, b.data() + f.offset);
}

// Open and read everything; count outcomes. Must return normally whatever the bytes.
void exercise(const std::vector<uint8_t>& b, size_t& ok, size_t& errors) {
  auto rec = Recording::from_bytes({reinterpret_cast<const std::byte*>(b.data()), b.size()});
  if (!rec) {
    ++errors;
    return;
  }
  const Recording& r = **rec;
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    bool good = r.verify_gc(i).is_ok();
    good = r.read_roots(i).is_ok() && good;
    good = r.read_ranges(i).is_ok() && good;
    good = r.read_generation_bounds(i).is_ok() && good;
    auto objects = r.read_objects(i);
    if (objects) {
      REQUIRE(objects->reference_offsets.size() == objects->size() + 1);
      REQUIRE(objects->reference_offsets.back() == objects->reference_targets.size());
      REQUIRE(objects->type_ids.size() == objects->size());
      REQUIRE(objects->generations.size() == objects->size());
    }
    good = r.read_names(i).is_ok() && good;
    (good ? ok : errors) += 1;
  }
}

std::vector<uint8_t> sample_bytes() {
  ModelOptions mo;
  mo.max_objects = 10;
  mo.max_roots = 5;
  auto model = make_random_gcs(5, 3, mo);
  WriterOptions wo;
  wo.chunk_items = 4;
  wo.background_compression = false;
  const std::string path = temp_path("forged-checksum");
  REQUIRE(write_model(path, model, wo).is_ok());
  auto bytes = read_file_bytes(path);
  std::remove(path.c_str());
  std::vector<uint8_t> b(bytes.size());
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(bytes[i]);
  return b;
}

}  // namespace

TEST_CASE("every payload byte changed with checksums rewritten") {
  const auto original = sample_bytes();
  const auto sections = list_sections(original);
  REQUIRE(sections.size() > 10);
  size_t ok = 0, errors = 0;
  for (const auto& f : sections) {
    for (uint64_t k = 0; k < f.header.stored_size; ++k) {
      for (uint8_t change : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
        auto b = original;
        b[f.offset + format::kSectionHeaderSize + k] ^= change;
        reseal(b, f, f.header);
        exercise(b, ok, errors);
      }
    }
  }
  INFO("ok " << ok << " errors " << errors);
  CHECK(errors > 0);
}

TEST_CASE("section header counts and sizes changed with checksums rewritten") {
  const auto original = sample_bytes();
  const auto sections = list_sections(original);
  size_t ok = 0, errors = 0;
  const uint64_t values[] = {0, 1, 2, 7, 63, 64, 1000, 1ull << 20, 1ull << 32, 1ull << 62, UINT64_MAX};
  for (const auto& f : sections) {
    for (uint64_t v : values) {
      for (int field = 0; field < 4; ++field) {
        auto b = original;
        format::SectionHeader h = f.header;
        if (field == 0) h.item_count = v;
        if (field == 1) h.decoded_size = v;
        if (field == 2) h.stored_size = v;
        if (field == 3) h.type = static_cast<uint16_t>(v);
        reseal(b, f, h);
        exercise(b, ok, errors);
      }
    }
  }
  INFO("ok " << ok << " errors " << errors);
  CHECK(errors > 0);
}
