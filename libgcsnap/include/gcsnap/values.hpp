#pragma once
/// Values of a heap walk, private by default (format-spec.md §6.23-§6.26): each string as its
/// length and a keyed hash of its content, the content only when the recording was asked to
/// capture it, and the count, capacity and limit of runtime and framework collections.

#include <cstdint>
#include <string_view>

namespace gcsnap {

/// One string of a heap walk (§6.23): equal hashes within one recording mean equal content.
struct StringValue {
  uint64_t address = 0;
  uint32_t length = 0;  ///< UTF-16 code units
  uint64_t hash = 0;    ///< keyed XXH3-64 of the code units; the key is never written
};

/// The first characters of one string (§6.24), only in recordings made with --capture-strings.
struct StringContent {
  uint64_t address = 0;
  uint32_t chars = 0;     ///< UTF-16 code units captured
  std::string_view text;  ///< UTF-8
};

/// §6.25 kinds.
enum class CollectionKind : uint8_t {
  List = 1,
  Dictionary = 2,
  HashSet = 3,
  Queue = 4,
  Stack = 5,
  ConcurrentDictionary = 6,
  MemoryCache = 7,
  EmptyArray = 8,  ///< an array of length 0
};
inline constexpr uint8_t kMaxCollectionKind = 8;

/// The figures of one collection or cache (§6.25).
struct CollectionValue {
  uint64_t address = 0;
  CollectionKind kind = CollectionKind::List;
  uint64_t count = 0;
  uint64_t capacity = 0;  ///< MemoryCache: its size (sum of entry sizes)
  uint64_t limit = 0;     ///< MemoryCache: its size limit; 0 none
};

namespace value_flags {
inline constexpr uint8_t kContentsCaptured = 0x1;
inline constexpr uint8_t kContentsStripped = 0x2;
inline constexpr uint8_t kAll = 0x3;
}  // namespace value_flags

/// How a walk's values were recorded (§6.26).
struct ValueCapture {
  uint8_t hash_kind = 1;       ///< 1: XXH3-64 keyed per recording
  uint8_t flags = 0;           ///< value_flags bits
  uint32_t capture_chars = 0;  ///< N of --capture-strings=N; 0 none
};

/// The short name of a collection kind ("List", "MemoryCache").
std::string_view collection_kind_name(CollectionKind kind) noexcept;

}  // namespace gcsnap
