// The checksums' XXH3 with the CPU's widest vector unit (format/xxh3_wide.hpp) against xxhash's
// portable inline build: every length around the short/medium/long boundaries and a stripe,
// unaligned starts, and streaming in uneven pieces.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "format/xxh3_wide.hpp"

using namespace gcsnap::format;

namespace {

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

// Lengths where XXH3 changes path (16, 128, 240), a stripe (64), a block (1,024) and the
// streaming buffer (256), each with its neighbours, then a few long ones.
std::vector<size_t> lengths() {
  std::vector<size_t> out;
  for (size_t edge : {size_t{0}, size_t{16}, size_t{64}, size_t{128}, size_t{240}, size_t{256}, size_t{1024},
                      size_t{4096}}) {
    for (size_t d = 0; d < 4; ++d) {
      out.push_back(edge + d);
      if (edge >= d) out.push_back(edge - d);
    }
  }
  for (size_t n : {size_t{100000}, size_t{1} << 20, (size_t{3} << 20) + 17}) out.push_back(n);
  return out;
}

}  // namespace

TEST_CASE("xxh3_64 gives xxhash's XXH3-64 at every length and alignment") {
  const auto bytes = random_bytes((size_t{3} << 20) + 64, 11);
  for (size_t n : lengths()) {
    for (size_t offset : {0, 1, 7, 31}) {
      INFO("length " << n << ", offset " << offset);
      CHECK(xxh3_64(bytes.data() + offset, n) == XXH3_64bits(bytes.data() + offset, n));
    }
  }
  // The published value for empty input: a dispatch that hashed nothing differently would fail.
  CHECK(xxh3_64(nullptr, 0) == 0x2D06800538D394C2ull);
}

TEST_CASE("xxh3_update in uneven pieces digests to the one-shot hash") {
  const auto bytes = random_bytes((size_t{2} << 20) + 333, 12);
  std::mt19937_64 rng(13);
  for (int round = 0; round < 20; ++round) {
    XXH3_state_t state;
    REQUIRE(XXH3_64bits_reset(&state) == XXH_OK);
    size_t at = 0;
    while (at < bytes.size()) {
      // Pieces from 0 bytes to past the 1,024-byte block, and now and then a long one.
      size_t n = rng() % 8 == 0 ? rng() % (size_t{300} << 10) : rng() % 1500;
      n = std::min(n, bytes.size() - at);
      xxh3_update(&state, bytes.data() + at, n);
      at += n;
    }
    CHECK(XXH3_64bits_digest(&state) == XXH3_64bits(bytes.data(), bytes.size()));
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TEST_CASE("xxh3_64 uses AVX2 exactly when the CPU has it") {
  __builtin_cpu_init();
  CHECK(xxh3_uses_avx2() == (__builtin_cpu_supports("avx2") != 0));
}
#endif
