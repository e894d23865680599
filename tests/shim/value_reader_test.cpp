// The values the walk reads (profiler-shim/value_reader.hpp) from objects laid out in memory
// as CoreCLR lays them out (MethodTable pointer, then fields; a string's length at +8 and its
// UTF-16 units from +12; an array's length at +8), with fields found through a fake
// RuntimeQueries::find_field.
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include "recorder.hpp"
#include "value_reader.hpp"

using namespace gcsnap;
using namespace gcsnap::shim;

namespace {

constexpr uint64_t kListClass = 0x100, kArrayClass = 0x200, kStringClass = 0x300;

class FieldQueries final : public RuntimeQueries {
 public:
  TypeName type_name(uint64_t) override { return {}; }
  uint64_t object_size(uint64_t) override { return 0; }
  uint32_t component_count(uint64_t object_id) override {
    uint32_t n;
    std::memcpy(&n, reinterpret_cast<const void*>(object_id + 8), 4);
    return n;
  }
  uint64_t class_of(uint64_t object_id) override {
    uint64_t mt;
    std::memcpy(&mt, reinterpret_cast<const void*>(object_id), 8);
    return mt;
  }
  std::string method_name(uint64_t) override { return {}; }
  bool find_field(uint64_t class_id, const char* name, ValueField& out) override {
    ++lookups;
    if (class_id != kListClass) return false;
    if (std::strcmp(name, "_items") == 0) out = ValueField{8, ValueField::Reference};
    else if (std::strcmp(name, "_size") == 0) out = ValueField{16, ValueField::Int32};
    else return false;
    return true;
  }
  int lookups = 0;
};

// An object of WORDS 8-byte words, its MethodTable pointer set; the vector keeps it alive.
uint64_t make_object(std::vector<uint64_t>& words, uint64_t class_id) {
  words[0] = class_id;
  return reinterpret_cast<uint64_t>(words.data());
}

uint64_t make_string(std::vector<uint64_t>& words, const char16_t* text, uint32_t length) {
  words.assign(2 + (length * 2 + 4 + 7) / 8, 0);
  const uint64_t at = make_object(words, kStringClass);
  std::memcpy(reinterpret_cast<void*>(at + 8), &length, 4);
  std::memcpy(reinterpret_cast<void*>(at + 12), text, length * 2u);
  return at;
}

}  // namespace

TEST_CASE("value_rule_for: strings, the framework's collections and arrays, by name") {
  CHECK(value_rule_for("System.String", true) == ValueRule::String);
  CHECK(value_rule_for("System.Collections.Generic.List<System.String>", false) == ValueRule::List);
  CHECK(value_rule_for("System.Collections.Generic.List<System.String>[]", true) == ValueRule::Array);
  CHECK(value_rule_for("System.Collections.Generic.List+Enumerator<System.String>", false) == ValueRule::None);
  CHECK(value_rule_for("System.Collections.Generic.Dictionary<System.String, System.Int32>", false) == ValueRule::Dictionary);
  CHECK(value_rule_for("System.Collections.Concurrent.ConcurrentDictionary<System.Int32, System.Int32>", false) ==
        ValueRule::ConcurrentDictionary);
  CHECK(value_rule_for("Microsoft.Extensions.Caching.Memory.MemoryCache", false) == ValueRule::MemoryCache);
  // The app's own types are never read, whatever they are called.
  CHECK(value_rule_for("App.List<System.String>", false) == ValueRule::None);
  CHECK(value_rule_for("App.Order", false) == ValueRule::None);
}

TEST_CASE("ValueReader: equal strings hash equal, content only when asked") {
  FieldQueries queries;
  std::vector<uint64_t> a, b, c;
  const uint64_t sa = make_string(a, u"Pending", 7), sb = make_string(b, u"Pending", 7), sc = make_string(c, u"Shipped", 7);
  GcBatch batch;
  ValueReader plain(queries, 0);
  for (uint64_t s : {sa, sb, sc}) plain.read(s, kStringClass, ValueRule::String, batch);
  REQUIRE(batch.string_values.size() == 3);
  CHECK(batch.string_values[0].length == 7);
  CHECK(batch.string_values[0].hash == batch.string_values[1].hash);
  CHECK(batch.string_values[0].hash != batch.string_values[2].hash);
  CHECK(batch.content_addresses.empty());
  CHECK(batch.content_text.empty());
  // Another recording draws another key: its hashes cannot be compared with these.
  GcBatch other;
  ValueReader captured(queries, 3);
  captured.read(sa, kStringClass, ValueRule::String, other);
  CHECK(other.string_values[0].hash != batch.string_values[0].hash);
  CHECK(other.content_text == "Pen");
  CHECK(other.content_chars == std::vector<uint32_t>{3});
}

TEST_CASE("ValueReader: a List's count and capacity, looked up once per class") {
  FieldQueries queries;
  std::vector<uint64_t> items(2 + 4, 0), list(3, 0), empty(3, 0);
  const uint64_t array = make_object(items, kArrayClass);
  const uint32_t capacity = 4;
  std::memcpy(reinterpret_cast<void*>(array + 8), &capacity, 4);
  const uint64_t at = make_object(list, kListClass);
  list[1] = array;
  const int32_t size = 2;
  std::memcpy(reinterpret_cast<void*>(at + 16), &size, 4);
  const uint64_t empty_array = make_object(empty, kArrayClass);
  GcBatch batch;
  ValueReader reader(queries, 0);
  reader.read(at, kListClass, ValueRule::List, batch);
  reader.read(at, kListClass, ValueRule::List, batch);
  reader.read(empty_array, kArrayClass, ValueRule::Array, batch);
  reader.read(array, kArrayClass, ValueRule::Array, batch);  // length 4: no row
  REQUIRE(batch.collection_values.size() == 3);
  CHECK(batch.collection_values[0].kind == CollectionKind::List);
  CHECK(batch.collection_values[0].count == 2);
  CHECK(batch.collection_values[0].capacity == 4);
  CHECK(batch.collection_values[2].kind == CollectionKind::EmptyArray);
  CHECK(queries.lookups == 2);  // _size and _items, once each
  // A class whose fields the runtime does not name as expected gets no row, not a guess.
  reader.read(at, kListClass, ValueRule::Dictionary, batch);
  CHECK(batch.collection_values.size() == 3);
}
