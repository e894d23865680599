// The export's packed addresses (export/packed_addresses.hpp): every node's address back, in
// node order and at random, for sorted walks, unsorted input, blocks of one address, gaps that
// need all 64 bits and the compactness that is their reason to exist.
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "export/packed_addresses.hpp"

using gcsnap::cli::PackedAddresses;

namespace {

PackedAddresses pack(const std::vector<uint64_t>& addresses) {
  PackedAddresses p;
  for (uint64_t a : addresses) p.push_back(a);
  p.finish();
  return p;
}

void check_all(const std::vector<uint64_t>& addresses) {
  const PackedAddresses p = pack(addresses);
  REQUIRE(p.size() == addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) REQUIRE(p[i] == addresses[i]);
  std::mt19937_64 random(7);
  for (int k = 0; k < 1000 && !addresses.empty(); ++k) {
    const size_t i = random() % addresses.size();
    REQUIRE(p[i] == addresses[i]);
  }
}

}  // namespace

TEST_CASE("packed addresses: a sorted walk comes back whole and small", "[packed_addresses]") {
  std::mt19937_64 random(1);
  std::vector<uint64_t> addresses;
  uint64_t a = 0x7f0000001000;
  for (size_t i = 0; i < 100000; ++i) {
    addresses.push_back(a);
    a += 24 + 8 * (random() % 12);
    if (i % 30000 == 29999) a += uint64_t{1} << 32;  // another segment
  }
  check_all(addresses);
  // Offsets of about 12 bits and 16 bytes a block of 64: well under the 8 bytes of a vector.
  CHECK(pack(addresses).memory_bytes() < addresses.size() * 2 + 64);
}

TEST_CASE("packed addresses: sizes around a block", "[packed_addresses]") {
  for (size_t n : {0, 1, 2, 63, 64, 65, 127, 128, 129, 1000}) {
    std::vector<uint64_t> addresses;
    for (size_t i = 0; i < n; ++i) addresses.push_back(0x1000 + 32 * i);
    check_all(addresses);
  }
}

TEST_CASE("packed addresses: any order and any width", "[packed_addresses]") {
  std::mt19937_64 random(3);
  std::vector<uint64_t> addresses;
  for (size_t i = 0; i < 5000; ++i) addresses.push_back(random() >> (random() % 64));
  addresses.push_back(0);
  addresses.push_back(~uint64_t{0});  // a block whose offsets need all 64 bits
  for (size_t i = 0; i < 200; ++i) addresses.push_back(0x5000);  // width 0
  for (size_t i = 0; i < 100; ++i) addresses.push_back(i % 2 ? ~uint64_t{0} : 0);
  check_all(addresses);
}
