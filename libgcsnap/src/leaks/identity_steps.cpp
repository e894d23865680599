#include "leaks/identity_steps.hpp"

#include "leaks/leak_scan.hpp"

namespace gcsnap::leaks {

namespace {

// One varint a map entry: 0 for kNoBirth, else 1 + the zigzag of the entry's distance from
// the previous survivor's plus one (0 for a survivor right after the previous one).
void put_varint(std::vector<uint8_t>& out, uint64_t v) {
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<uint8_t>(v | 0x80));
  out.push_back(static_cast<uint8_t>(v));
}

uint64_t get_varint(const uint8_t*& p) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

}  // namespace

void IdentitySteps::set(size_t w, std::span<const uint32_t> next) {
  Coded c;
  c.count = next.size();
  c.bytes.reserve(next.size() + next.size() / 4 + 16);
  int64_t previous = -1;
  for (const uint32_t x : next) {
    if (x == kNoBirth) {
      c.bytes.push_back(0);
      continue;
    }
    const int64_t d = static_cast<int64_t>(x) - previous - 1;
    put_varint(c.bytes, 1 + (static_cast<uint64_t>(d) << 1 ^ static_cast<uint64_t>(d >> 63)));
    previous = x;
  }
  c.bytes.shrink_to_fit();
  steps_[w] = std::move(c);
}

std::vector<uint32_t> IdentitySteps::compose(size_t w, std::span<const uint32_t> later) const {
  const Coded& c = steps_[w];
  std::vector<uint32_t> out(c.count, kNoBirth);
  const uint8_t* p = c.bytes.data();
  int64_t previous = -1;
  for (size_t i = 0; i < c.count; ++i) {
    const uint64_t t = get_varint(p);
    if (t == 0) continue;
    const uint64_t z = t - 1;
    const int64_t d = static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
    previous += d + 1;
    const auto x = static_cast<uint32_t>(previous);
    out[i] = later.empty() ? x : (x < later.size() ? later[x] : kNoBirth);
  }
  return out;
}

size_t IdentitySteps::coded_bytes() const noexcept {
  size_t n = 0;
  for (const Coded& c : steps_) n += c.bytes.size();
  return n;
}

}  // namespace gcsnap::leaks
