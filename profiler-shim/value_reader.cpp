#include "value_reader.hpp"

#include <cstring>
#include <random>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "recorder.hpp"

namespace gcsnap::shim {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) noexcept {
  return text.substr(0, prefix.size()) == prefix;
}

template <typename T>
T load(uint64_t address) noexcept {
  T value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(T));
  return value;
}

// Object layout on 64-bit CoreCLR: the MethodTable pointer at +0; a string's length (u32) at
// +8 and its UTF-16 code units from +12; an array's length (u32) at +8 and its elements from +16.
constexpr uint64_t kLengthOffset = 8;
constexpr uint64_t kStringChars = 12;
constexpr uint64_t kArrayData = 16;

// UTF-16 code units to UTF-8; an unpaired surrogate becomes U+FFFD (format-spec.md §6.24).
void append_utf8(const uint8_t* units, uint32_t n, std::string& out) {
  auto unit = [&](uint32_t k) { return static_cast<uint32_t>(units[2 * k] | (units[2 * k + 1] << 8)); };
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t c = unit(k);
    if (c >= 0xD800 && c < 0xDC00 && k + 1 < n && unit(k + 1) >= 0xDC00 && unit(k + 1) < 0xE000) {
      c = 0x10000 + ((c - 0xD800) << 10) + (unit(k + 1) - 0xDC00);
      ++k;
    } else if (c >= 0xD800 && c < 0xE000) {
      c = 0xFFFD;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
}

}  // namespace

ValueRule value_rule_for(std::string_view name, bool variable) noexcept {
  if (name == "System.String") return ValueRule::String;
  if (variable) return name.ends_with("]") ? ValueRule::Array : ValueRule::None;
  struct Prefix {
    std::string_view text;
    ValueRule rule;
  };
  static constexpr Prefix kPrefixes[] = {
      {"System.Collections.Generic.List<", ValueRule::List},
      {"System.Collections.Generic.Dictionary<", ValueRule::Dictionary},
      {"System.Collections.Generic.HashSet<", ValueRule::HashSet},
      {"System.Collections.Generic.Queue<", ValueRule::Queue},
      {"System.Collections.Generic.Stack<", ValueRule::Stack},
      {"System.Collections.Concurrent.ConcurrentDictionary<", ValueRule::ConcurrentDictionary},
  };
  for (const Prefix& p : kPrefixes)
    if (starts_with(name, p.text)) return p.rule;
  if (name == "Microsoft.Extensions.Caching.Memory.MemoryCache") return ValueRule::MemoryCache;
  return ValueRule::None;
}

ValueReader::ValueReader(RuntimeQueries& queries, uint32_t capture_chars)
    : queries_(queries), capture_chars_(capture_chars) {
  std::random_device random;
  for (size_t i = 0; i < secret_.size(); i += 4) {
    const uint32_t word = random();
    std::memcpy(secret_.data() + i, &word, 4);
  }
}

const ValueField* ValueReader::field(uint64_t class_id, const char* name) {
  if (class_id == 0) return nullptr;
  auto found = fields_.find(Key{class_id, name});
  if (found == fields_.end()) {
    ValueField f;
    if (!queries_.find_field(class_id, name, f)) f.kind = ValueField::Other;
    found = fields_.emplace(Key{class_id, name}, f).first;
  }
  return found->second.kind == ValueField::Other ? nullptr : &found->second;
}

bool ValueReader::read_count(uint64_t object, uint64_t class_id, const char* name, uint64_t& out) {
  const ValueField* f = field(class_id, name);
  if (!f) return false;
  const uint64_t at = object + f->offset;
  switch (f->kind) {
    case ValueField::Int32: {
      const int32_t v = load<int32_t>(at);
      out = v < 0 ? 0 : static_cast<uint64_t>(v);
      return v >= 0;
    }
    case ValueField::Int64: {
      const int64_t v = load<int64_t>(at);
      out = v < 0 ? 0 : static_cast<uint64_t>(v);
      return true;  // a negative size limit means "none" (MemoryCacheOptions' NotSet)
    }
    case ValueField::NullableInt64: {
      // Nullable<long>: hasValue (bool) first, the value 8 bytes in.
      const int64_t v = load<uint8_t>(at) != 0 ? load<int64_t>(at + 8) : 0;
      out = v < 0 ? 0 : static_cast<uint64_t>(v);
      return true;
    }
    default: return false;
  }
}

bool ValueReader::read_reference(uint64_t object, uint64_t class_id, const char* name, uint64_t& out) {
  const ValueField* f = field(class_id, name);
  if (!f || f->kind != ValueField::Reference) return false;
  out = load<uint64_t>(object + f->offset);
  return true;
}

bool ValueReader::array_length(uint64_t object, uint64_t class_id, const char* name, uint64_t& out) {
  uint64_t array = 0;
  if (!read_reference(object, class_id, name, array)) return false;
  out = array == 0 ? 0 : load<uint32_t>(array + kLengthOffset);
  return true;
}

// ConcurrentDictionary: `_tables` holds `_countPerLock` (one count per lock, summed) and `_buckets`.
bool ValueReader::concurrent_count(uint64_t dictionary, uint64_t class_id, uint64_t& count, uint64_t* buckets) {
  uint64_t tables = 0, counts = 0;
  if (!read_reference(dictionary, class_id, "_tables", tables) || tables == 0) return false;
  const uint64_t tables_class = queries_.class_of(tables);
  if (!read_reference(tables, tables_class, "_countPerLock", counts) || counts == 0) return false;
  const uint32_t locks = load<uint32_t>(counts + kLengthOffset);
  count = 0;
  for (uint32_t k = 0; k < locks; ++k) {
    const int32_t c = load<int32_t>(counts + kArrayData + 4ull * k);
    if (c > 0) count += static_cast<uint64_t>(c);
  }
  return !buckets || array_length(tables, tables_class, "_buckets", *buckets);
}

// MemoryCache: entries in `_coherentState`'s `_stringEntries` and `_nonStringEntries` (8 to
// 11); its size in `_coherentState._cacheSize` (8 to 10) or, on 11, in `_cacheSizePadded`, a
// CacheSizePadded struct (explicit layout, 128 bytes) whose long `Value` is at +64 (read by
// reflection from Microsoft.Extensions.Caching.Memory 11.0.0); the limit in `_options._sizeLimit`.
bool ValueReader::read_cache(uint64_t cache, uint64_t class_id, CollectionValue& out) {
  uint64_t state = 0, options = 0;
  if (!read_reference(cache, class_id, "_coherentState", state) || state == 0) return false;
  const uint64_t state_class = queries_.class_of(state);
  uint64_t total = 0;
  bool any = false;
  for (const char* name : {"_stringEntries", "_nonStringEntries", "_entries"}) {
    uint64_t dictionary = 0, count = 0;
    if (!read_reference(state, state_class, name, dictionary) || dictionary == 0) continue;
    if (!concurrent_count(dictionary, queries_.class_of(dictionary), count, nullptr)) return false;
    total += count;
    any = true;
  }
  if (!any) return false;
  out.count = total;
  if (!read_count(state, state_class, "_cacheSize", out.capacity)) {
    constexpr uint64_t kPaddedValue = 64;
    const ValueField* padded = field(state_class, "_cacheSizePadded");
    const int64_t size = padded && padded->kind == ValueField::Struct ? load<int64_t>(state + padded->offset + kPaddedValue) : 0;
    out.capacity = size > 0 ? static_cast<uint64_t>(size) : 0;
  }
  if (!read_reference(cache, class_id, "_options", options) || options == 0 ||
      !read_count(options, queries_.class_of(options), "_sizeLimit", out.limit))
    out.limit = 0;
  return true;
}

void ValueReader::read_string(uint64_t address, GcBatch& b) {
  const uint32_t length = load<uint32_t>(address + kLengthOffset);
  if (length > 0x7FFFFFFFu) return;
  const auto* chars = reinterpret_cast<const void*>(address + kStringChars);
  const uint64_t hash = XXH3_64bits_withSecret(chars, size_t{length} * 2, secret_.data(), secret_.size());
  b.string_values.push_back(StringValue{address, length, hash});
  if (capture_chars_ == 0) return;
  const uint32_t n = length < capture_chars_ ? length : capture_chars_;
  const size_t before = b.content_text.size();
  append_utf8(static_cast<const uint8_t*>(chars), n, b.content_text);
  b.content_addresses.push_back(address);
  b.content_chars.push_back(n);
  b.content_lengths.push_back(static_cast<uint32_t>(b.content_text.size() - before));
}

void ValueReader::read(uint64_t address, uint64_t class_id, ValueRule rule, GcBatch& b) {
  CollectionValue row{address, CollectionKind::List, 0, 0, 0};
  uint64_t free = 0;
  bool ok = false;
  switch (rule) {
    case ValueRule::None: return;
    case ValueRule::String: read_string(address, b); return;
    case ValueRule::Array:
      if (load<uint32_t>(address + kLengthOffset) != 0) return;
      row.kind = CollectionKind::EmptyArray;
      ok = true;
      break;
    case ValueRule::List:
    case ValueRule::Queue:
    case ValueRule::Stack:
      row.kind = rule == ValueRule::List ? CollectionKind::List
                 : rule == ValueRule::Queue ? CollectionKind::Queue : CollectionKind::Stack;
      ok = read_count(address, class_id, "_size", row.count) &&
           array_length(address, class_id, rule == ValueRule::List ? "_items" : "_array", row.capacity);
      break;
    case ValueRule::Dictionary:
    case ValueRule::HashSet:
      row.kind = rule == ValueRule::Dictionary ? CollectionKind::Dictionary : CollectionKind::HashSet;
      ok = read_count(address, class_id, "_count", row.count) && read_count(address, class_id, "_freeCount", free) &&
           array_length(address, class_id, "_entries", row.capacity) && free <= row.count;
      row.count -= ok ? free : 0;
      break;
    case ValueRule::ConcurrentDictionary:
      row.kind = CollectionKind::ConcurrentDictionary;
      ok = concurrent_count(address, class_id, row.count, &row.capacity);
      break;
    case ValueRule::MemoryCache:
      row.kind = CollectionKind::MemoryCache;
      ok = read_cache(address, class_id, row);
      break;
  }
  if (ok) b.collection_values.push_back(row);
}

}  // namespace gcsnap::shim
