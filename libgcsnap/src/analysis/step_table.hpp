#pragma once
// The lookup map of a ShapeTrie (shape_trie.hpp): a 64-bit key (parent << 32 | label) to a
// 32-bit shape, open addressing with linear probing, 12 B a slot. A walk of the synthetic
// series makes about one shape per object, so at 10 M objects this map is most of a walk's
// trie: tsl::robin_map took 24 B a bucket (16.8 M buckets, 400 MB). Its slots can also be
// prefetched before they are probed (prefetch), which a BFS that knows its next steps does.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gcsnap::leaks {

class StepTable {
 public:
  /// The one key that is never stored: labels are below 0xFFFFFFFF.
  static constexpr uint64_t kEmpty = UINT64_MAX;

  /// Make room for N keys without growing. Throws std::bad_alloc.
  void reserve(size_t n);
  /// The value of KEY (!= kEmpty), inserting VALUE first when KEY is new; whether it was.
  /// Throws std::bad_alloc (growing).
  std::pair<uint32_t*, bool> try_emplace(uint64_t key, uint32_t value);
  /// Start loading the slot where KEY's probe begins (a hint; nothing changes).
  void prefetch(uint64_t key) const noexcept;
  size_t size() const noexcept { return size_; }
  /// Free the slots (size() 0, no capacity).
  void release() noexcept;

 private:
#pragma pack(push, 4)
  struct Slot {
    uint64_t key;
    uint32_t value;
  };
#pragma pack(pop)
  static_assert(sizeof(Slot) == 12);

  static size_t hash(uint64_t key) noexcept {
    // Mix every bit into the low ones (the slot is the low bits).
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    return static_cast<size_t>(key ^ key >> 33);
  }
  void grow(size_t slots);

  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0, limit_ = 0;  // limit_: size at which to grow (3/4 full)
};

}  // namespace gcsnap::leaks
