#pragma once
// Little-endian payload builder for the events-source tests.
#include <cstdint>
#include <vector>

namespace gcsnap::shim::test {

struct Bytes {
  std::vector<uint8_t> data;
  Bytes& put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) data.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& u8(uint64_t v) { return put(v, 1); }
  Bytes& u16(uint64_t v) { return put(v, 2); }
  Bytes& u32(uint64_t v) { return put(v, 4); }
  Bytes& u64(uint64_t v) { return put(v, 8); }
};

}  // namespace gcsnap::shim::test
