// read_objects on several threads (ReaderOptions::object_decode_threads) against one thread: the same
// table, and on a damaged file the same first error (docs/library.md).
#include <catch2/catch.hpp>

#include <cstddef>
#include <random>
#include <vector>

#include <gcsnap/gcsnap.hpp>

#include "temp_path.hpp"

using namespace gcsnap;

namespace {

// One heap walk big enough for the reader to start decode threads (2^19 objects and up),
// in chunks of 2^16 objects, so that it has many objects sections to share out.
std::vector<std::byte> big_recording() {
  const std::string path = gcsnap::test::temp_path("threaded-decode");
  WriterOptions options;
  options.chunk_items = 1u << 16;
  auto w = Writer::create(path, options);
  REQUIRE(w);
  GcInfo info;
  info.gc_number = 1;
  info.trigger = SnapshotTrigger::Policy;
  REQUIRE((*w)->begin_gc(info).is_ok());
  const size_t n = (1u << 19) + 12345;
  std::mt19937_64 rng(11);
  std::vector<uint64_t> addresses(n), sizes(n), references;
  std::vector<uint32_t> types(n), counts(n);
  std::vector<uint8_t> generations(n);
  uint64_t address = 0x7f0000001000;
  for (size_t i = 0; i < n; ++i) {
    addresses[i] = address;
    sizes[i] = 24 + 8 * (rng() % 10);
    address += sizes[i];
    types[i] = 0;
    generations[i] = static_cast<uint8_t>(rng() % 3);
  }
  for (size_t i = 0; i < n; ++i) {
    counts[i] = static_cast<uint32_t>(rng() % 4);
    for (uint32_t k = 0; k < counts[i]; ++k) references.push_back(addresses[rng() % n]);
  }
  REQUIRE((*w)->add_objects(addresses, types, sizes, generations, counts, references).is_ok());
  REQUIRE((*w)->end_gc(info).is_ok());
  REQUIRE((*w)->close().is_ok());
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f);
  std::vector<std::byte> bytes;
  std::byte buf[65536];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.insert(bytes.end(), buf, buf + got);
  std::fclose(f);
  std::remove(path.c_str());
  return bytes;
}

Result<ObjectTable> read_with(const std::vector<std::byte>& bytes, unsigned threads) {
  ReaderOptions options;
  options.object_decode_threads = threads;
  auto rec = Recording::from_bytes(bytes, {}, options);
  REQUIRE(rec);
  return (*rec)->read_objects(0);
}

}  // namespace

TEST_CASE("objects decoded on several threads equal those decoded on one") {
  const auto bytes = big_recording();
  auto one = read_with(bytes, 1);
  auto four = read_with(bytes, 4);
  REQUIRE(one);
  REQUIRE(four);
  REQUIRE(one->size() == (1u << 19) + 12345);
  CHECK(four->addresses == one->addresses);
  CHECK(four->sizes == one->sizes);
  CHECK(four->type_ids == one->type_ids);
  CHECK(four->generations == one->generations);
  CHECK(four->reference_offsets == one->reference_offsets);
  CHECK(four->reference_targets == one->reference_targets);
}

TEST_CASE("a damaged file gives the same first error on several threads as on one") {
  const auto clean = big_recording();
  // Damage two places in the objects sections; the error must name the first, whichever
  // thread reaches its section first.
  for (double first : {0.2, 0.45}) {
    auto bytes = clean;
    bytes[static_cast<size_t>(first * static_cast<double>(bytes.size()))] ^= std::byte{0x5A};
    bytes[static_cast<size_t>(0.7 * static_cast<double>(bytes.size()))] ^= std::byte{0x5A};
    auto one = read_with(bytes, 1);
    auto four = read_with(bytes, 4);
    REQUIRE_FALSE(one);
    REQUIRE_FALSE(four);
    CHECK(four.error().code == one.error().code);
    CHECK(four.error().offset == one.error().offset);
    CHECK(one.error().offset < static_cast<uint64_t>(0.7 * static_cast<double>(bytes.size())));
  }
}
