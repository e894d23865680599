#include "export/packed_addresses.hpp"

#include <algorithm>
#include <bit>

namespace gcsnap::cli {

void PackedAddresses::push_back(uint64_t address) {
  pending_[pending_count_++] = address;
  ++size_;
  if (pending_count_ == kBlock) pack_pending();
}

void PackedAddresses::finish() {
  if (pending_count_ != 0) pack_pending();
  // The spare word that operator[] may read past the last offset.
  words_.resize(static_cast<size_t>(bits_ / 64) + 2, 0);
  blocks_.shrink_to_fit();
  words_.shrink_to_fit();
}

void PackedAddresses::pack_pending() {
  const auto first = pending_.begin(), last = pending_.begin() + static_cast<ptrdiff_t>(pending_count_);
  const uint64_t base = *std::min_element(first, last);
  const uint64_t span = *std::max_element(first, last) - base;
  const unsigned width = static_cast<unsigned>(std::bit_width(span));
  blocks_.push_back(Block{base, width | (bits_ << 7)});
  for (auto it = first; it != last; ++it) put_bits(*it - base, width);
  pending_count_ = 0;
}

void PackedAddresses::put_bits(uint64_t value, unsigned width) {
  if (width == 0) return;
  const size_t word = static_cast<size_t>(bits_ / 64);
  const unsigned shift = static_cast<unsigned>(bits_ % 64);
  if (words_.size() < word + 2) words_.resize(std::max(word + 2, words_.size() * 3 / 2), 0);
  words_[word] |= value << shift;
  if (shift != 0 && shift + width > 64) words_[word + 1] |= value >> (64 - shift);
  bits_ += width;
}

}  // namespace gcsnap::cli
