#include "leaks/identity_steps.hpp"

#include "format/varint.hpp"
#include "leaks/leak_scan.hpp"

namespace gcsnap::leaks {

// One varint a map entry (format/varint.hpp): 0 for kNoBirth, else 1 + the zigzag of the entry's
// distance from the previous survivor's plus one (0 for a survivor right after the previous one).
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
    uint8_t varint[format::kMaxVarintBytes];
    const size_t n = format::put_varint(varint, 1 + format::zigzag_encode(static_cast<uint64_t>(d)));
    c.bytes.insert(c.bytes.end(), varint, varint + n);
    previous = x;
  }
  c.bytes.shrink_to_fit();
  steps_[w] = std::move(c);
}

std::vector<uint32_t> IdentitySteps::compose(size_t w, std::span<const uint32_t> later) const {
  const Coded& c = steps_[w];
  std::vector<uint32_t> out(c.count, kNoBirth);
  const uint8_t* p = c.bytes.data();
  const uint8_t* const end = p + c.bytes.size();
  int64_t previous = -1;
  for (size_t i = 0; i < c.count; ++i) {
    uint64_t t = 0;
    p += format::get_varint(p, end, t);  // written by set(): never cut
    if (t == 0) continue;
    const auto d = static_cast<int64_t>(format::zigzag_decode(t - 1));
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
