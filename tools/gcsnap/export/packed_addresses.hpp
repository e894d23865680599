#pragma once
// Every object's address of one walk in about 2 bytes each instead of 8, with O(1) access by
// node: the export's dominators and references point at any node, and reading the addresses
// back from the index's pieces per batch costs more than the whole export (docs/fleet.md
// "Memory"). Frame of reference by blocks of 64 nodes: per block the smallest address, the bit
// width of the largest offset from it and where its offsets start; then each node's offset from
// its block's smallest address in that many bits. Node order is address order in a walk, so
// a block's offsets are about 64 object sizes wide; any order still works, only less compact.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gcsnap::cli {

class PackedAddresses {
 public:
  /// Append the address of the next node.
  void push_back(uint64_t address);
  /// Pack what push_back left in its last block; call once, after the last push_back.
  void finish();

  /// The number of addresses appended.
  size_t size() const noexcept { return size_; }
  /// The address of node I (I < size(), after finish()).
  uint64_t operator[](size_t i) const noexcept {
    const Block& b = blocks_[i / kBlock];
    const uint64_t width = b.width_and_bit & 0x7f;
    const uint64_t bit = (b.width_and_bit >> 7) + (i % kBlock) * width;
    const size_t word = static_cast<size_t>(bit / 64);
    const unsigned shift = static_cast<unsigned>(bit % 64);
    uint64_t v = words_[word] >> shift;
    if (shift != 0) v |= words_[word + 1] << (64 - shift);  // words_ ends with a spare word
    return b.base + (v & kMasks[width]);
  }
  /// The bytes it holds.
  size_t memory_bytes() const noexcept {
    return blocks_.capacity() * sizeof(Block) + words_.capacity() * sizeof(uint64_t);
  }

 private:
  static constexpr size_t kBlock = 64;
  struct Block {
    uint64_t base;           // the block's smallest address
    uint64_t width_and_bit;  // bits 0-6: the offsets' width (0-64); above: the first offset's bit
  };
  static constexpr std::array<uint64_t, 65> kMasks = [] {
    std::array<uint64_t, 65> m{};
    for (size_t w = 0; w < 64; ++w) m[w] = (uint64_t{1} << w) - 1;
    m[64] = ~uint64_t{0};
    return m;
  }();
  void pack_pending();
  void put_bits(uint64_t value, unsigned width);

  std::vector<Block> blocks_;
  std::vector<uint64_t> words_;
  uint64_t bits_ = 0;  // bits used in words_
  std::array<uint64_t, kBlock> pending_{};
  size_t pending_count_ = 0;
  size_t size_ = 0;
};

}  // namespace gcsnap::cli
