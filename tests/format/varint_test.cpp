// The branch-free varint paths (format/varint.hpp) and the edge column's two-pass encoder
// (format/column_codec.cpp) against byte-at-a-time references.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "format/column_codec.hpp"
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

TEST_CASE("put_varint_pdep writes the same bytes as put_varint where the encoders use it") {
#if defined(__x86_64__) && defined(__GNUC__)
  if (!__builtin_cpu_supports("bmi2")) {
    CHECK_FALSE(has_fast_pdep());  // the encoders never take the pdep path here
    return;
  }
  for (uint64_t v : interesting_values()) {
    uint8_t slow[16] = {}, fast[16] = {};
    const size_t n = put_varint(slow, v);
    REQUIRE(put_varint_pdep(fast, v) == n);
    REQUIRE(std::memcmp(slow, fast, n) == 0);
  }
#else
  CHECK_FALSE(has_fast_pdep());
#endif
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

namespace {

// The edge column as §5 defines it, one object at a time: kind, length, zigzag(target - source)
// per edge, all divided by 8 when every source with edges and every target is aligned.
std::vector<uint8_t> reference_edge_column(const std::vector<uint64_t>& sources, const std::vector<uint32_t>& counts,
                                           const std::vector<uint64_t>& targets) {
  uint64_t any_low = 0;
  for (uint64_t t : targets) any_low |= t;
  for (size_t i = 0; i < sources.size(); ++i)
    if (counts[i]) any_low |= sources[i];
  const unsigned shift = (any_low & 7) == 0 && !targets.empty() ? 3 : 0;
  std::vector<uint8_t> data;
  size_t t = 0;
  for (size_t i = 0; i < sources.size(); ++i)
    for (uint32_t k = 0; k < counts[i]; ++k, ++t) {
      uint8_t buf[16];
      const size_t n = put_varint(buf, zigzag_encode((targets[t] >> shift) - (sources[i] >> shift)));
      data.insert(data.end(), buf, buf + n);
    }
  std::vector<uint8_t> column = {static_cast<uint8_t>(static_cast<uint8_t>(ColumnKind::Edge) | (shift ? kColumnShift3 : 0))};
  uint8_t len[16];
  column.insert(column.end(), len, len + put_varint(len, data.size()));
  column.insert(column.end(), data.begin(), data.end());
  return column;
}

}  // namespace

TEST_CASE("the edge column encoder writes the per-object reference's bytes, and they decode back") {
  std::mt19937_64 rng(11);
  // Out-degrees 0-4 (the unconditional lanes), 5-40 (the loop), and a last object whose lanes
  // would run past the end; aligned and unaligned addresses (shift 3 and 0), far targets.
  for (int round = 0; round < 40; ++round) {
    const bool aligned = round % 2 == 0;
    const size_t n = 1 + rng() % 300;
    std::vector<uint64_t> sources(n), targets;
    std::vector<uint32_t> counts(n);
    uint64_t address = 0x10000 + (rng() % 1000) * 8;
    for (size_t i = 0; i < n; ++i) {
      address += 8 * (1 + rng() % 20);
      sources[i] = address + (aligned ? 0 : rng() % 8);
      counts[i] = static_cast<uint32_t>(rng() % 4 == 0 ? rng() % 41 : rng() % 5);
      if (i + 1 == n) counts[i] = static_cast<uint32_t>(1 + round % 7);
      for (uint32_t k = 0; k < counts[i]; ++k) {
        uint64_t target = rng() % 3 == 0 ? rng() : sources[i] + (rng() % 4096) - 2048;
        targets.push_back(aligned ? target & ~uint64_t{7} : target);
      }
    }
    std::vector<uint8_t> column;
    encode_edge_column(sources, counts, targets, column);
    REQUIRE(column == reference_edge_column(sources, counts, targets));

    std::vector<uint64_t> counts64(counts.begin(), counts.end()), decoded(targets.size());
    ColumnCursor cursor(column, 0);
    REQUIRE(cursor.read_edges(sources.data(), counts64.data(), n, targets.size(), decoded.data()));
    REQUIRE(decoded == targets);
  }
}
