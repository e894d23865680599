#pragma once
// Values of a heap walk, private by default (format-spec.md §6.23-§6.26): each string's length
// and keyed hash, its first characters only when asked (--capture-strings), and the count,
// capacity and limit of the runtime's and framework's collections and caches, read from the
// objects' memory while the runtime is suspended for the walk (both sources). Field names are
// looked up per class through RuntimeQueries::find_field, so a runtime that renames a field
// costs that figure (no row), never a wrong one.

#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "gc_batch.hpp"

namespace gcsnap::shim {

class RuntimeQueries;

/// What the walk reads of an object of a class, decided once from the class's name.
enum class ValueRule : uint8_t {
  None = 0,
  String,
  List,
  Dictionary,
  HashSet,
  Queue,
  Stack,
  ConcurrentDictionary,
  MemoryCache,
  Array,  ///< a row only when its length is 0
};

/// The rule for a class named NAME (the shim's type-name text); VARIABLE: an array or string.
ValueRule value_rule_for(std::string_view name, bool variable) noexcept;

/// A field found by name: where it is and how to read it.
struct ValueField {
  enum Kind : uint8_t { Int32, Int64, NullableInt64, Reference, Struct, Other };
  uint32_t offset = 0;  ///< from the object's start (the MethodTable pointer)
  Kind kind = Other;
};

class ValueReader {
 public:
  /// CAPTURE_CHARS > 0: also record the first CAPTURE_CHARS characters of every string.
  ValueReader(RuntimeQueries& queries, uint32_t capture_chars);
  uint32_t capture_chars() const noexcept { return capture_chars_; }
  /// Read what RULE says of the object at ADDRESS of class CLASS_ID into BATCH's value rows.
  /// Throws std::bad_alloc only (the recorder's guard turns values off for the GC).
  void read(uint64_t address, uint64_t class_id, ValueRule rule, GcBatch& batch);

 private:
  const ValueField* field(uint64_t class_id, const char* name);
  // OBJECT's field NAME, OBJECT of class CLASS_ID (the walk's for the object read, class_of
  // for the objects it references).
  bool read_count(uint64_t object, uint64_t class_id, const char* name, uint64_t& out);
  bool read_reference(uint64_t object, uint64_t class_id, const char* name, uint64_t& out);
  bool array_length(uint64_t object, uint64_t class_id, const char* name, uint64_t& out);
  bool concurrent_count(uint64_t dictionary, uint64_t class_id, uint64_t& count, uint64_t* buckets);
  bool read_cache(uint64_t cache, uint64_t class_id, CollectionValue& out);
  void read_string(uint64_t address, GcBatch& batch);

  struct Key {
    uint64_t class_id;
    const char* name;  ///< a string literal: compared by address
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept {
      return static_cast<size_t>(k.class_id * 0x9E3779B97F4A7C15ull) ^ reinterpret_cast<size_t>(k.name);
    }
  };
  RuntimeQueries& queries_;
  uint32_t capture_chars_;
  std::array<uint8_t, 192> secret_{};  ///< XXH3's secret, drawn per recording, never written
  std::unordered_map<Key, ValueField, KeyHash> fields_;  ///< kind Other: looked up, not usable
};

}  // namespace gcsnap::shim
