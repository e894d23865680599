// The branch-free varint paths (format/varint.hpp) against the byte-at-a-time reference.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "format/varint.hpp"

using namespace gcsnap::format;

namespace {

// Every bit width, both edges of every length boundary, and random values of every width.
std::vector<uint64_t> interesting_values() {
  std::vector<uint64_t> values = {0, 1, ~uint64_t{0}};
  for (unsigned bits = 1; bits < 64; ++bits) {
    values.push_back((uint64_t{1} << bits) - 1);
    values.push_back(uint64_t{1} << bits);
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) values.push_back(rng() >> (rng() % 64));
  return values;
}

}  // namespace

TEST_CASE("put_varint_fast writes the same bytes as put_varint") {
  for (uint64_t v : interesting_values()) {
    uint8_t slow[16] = {}, fast[16] = {};
    const size_t n = put_varint(slow, v);
    REQUIRE(put_varint_fast(fast, v) == n);
    REQUIRE(std::memcmp(slow, fast, n) == 0);
  }
}

TEST_CASE("get_varint_fast8 reads what get_varint reads, and declines varints over 8 bytes") {
  for (uint64_t v : interesting_values()) {
    uint8_t buf[16];
    std::memset(buf, 0xAB, sizeof buf);  // bytes after the varint must not matter
    const size_t n = put_varint(buf, v);
    uint64_t fast = 0;
    const size_t used = get_varint_fast8(buf, fast);
    if (n <= 8) {
      REQUIRE(used == n);
      REQUIRE(fast == v);
    } else {
      REQUIRE(used == 0);
    }
    uint64_t any = 0;
    REQUIRE(get_varint_any(buf, buf + n, any) == n);
    REQUIRE(any == v);
  }
}

TEST_CASE("get_varint_any rejects what get_varint rejects") {
  const uint8_t cut[8] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};  // no last byte in 8
  uint64_t v = 0;
  CHECK(get_varint_any(cut, cut + 8, v) == 0);
  const uint8_t too_long[11] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0};
  CHECK(get_varint_any(too_long, too_long + 11, v) == 0);  // bits above 64
  const uint8_t short_one[2] = {0x81, 0x01};
  CHECK(get_varint_any(short_one, short_one + 2, v) == 2);
  CHECK(v == 129);
}
