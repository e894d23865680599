// The slot search on synthetic object memory (format-spec.md §6.13).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "slot_search.hpp"

using gcsnap::shim::find_reference_slots;

namespace {
constexpr uint32_t kUnknown = 0xFFFFFFFFu;

std::vector<uint32_t> search(const std::vector<uint64_t>& words, const std::vector<uint64_t>& refs, size_t* found = nullptr) {
  std::vector<uint32_t> slots(refs.size(), 0);
  const size_t n = find_reference_slots(words, refs, slots.data());
  if (found) *found = n;
  return slots;
}
}  // namespace

TEST_CASE("slots of fields reported in ascending order, nulls skipped", "[shim][slots]") {
  // MethodTable, int pair, ref, null ref, ref
  const std::vector<uint64_t> words{0x7000, 0x0000000500000004, 0xA000, 0, 0xB000};
  size_t found = 0;
  CHECK(search(words, {0xA000, 0xB000}, &found) == std::vector<uint32_t>{16, 32});
  CHECK(found == 2);
}

TEST_CASE("two fields holding the same object get their own slots", "[shim][slots]") {
  const std::vector<uint64_t> words{0x7000, 0xA000, 0xA000, 0xB000};
  CHECK(search(words, {0xA000, 0xA000, 0xB000}) == std::vector<uint32_t>{8, 16, 24});
}

TEST_CASE("a reference reported out of order is still found; a missing one is unknown", "[shim][slots]") {
  const std::vector<uint64_t> words{0x7000, 0xA000, 0xB000, 0xC000};
  CHECK(search(words, {0xC000, 0xA000}) == std::vector<uint32_t>{24, 8});
  size_t found = 0;
  // A collectible type's loader allocator is reported but is no field of the object.
  CHECK(search(words, {0xDEAD, 0xA000, 0xB000}, &found) == std::vector<uint32_t>{kUnknown, 8, 16});
  CHECK(found == 2);
}

TEST_CASE("the MethodTable word is never a slot, and an empty object finds nothing", "[shim][slots]") {
  CHECK(search({0x7000, 0x1}, {0x7000}) == std::vector<uint32_t>{kUnknown});
  CHECK(search({}, {0x7000}) == std::vector<uint32_t>{kUnknown});
}

TEST_CASE("a dense reference array: element i at data offset + 8 i", "[shim][slots]") {
  std::vector<uint64_t> words{0x7000, 100000};  // MethodTable, length
  std::vector<uint64_t> refs;
  for (uint64_t i = 0; i < 100000; ++i) {
    words.push_back(0x100000 + 16 * i);
    if (i % 3 != 0) refs.push_back(0x100000 + 16 * i);  // the others are not reported
  }
  const auto slots = search(words, refs);
  size_t k = 0;
  for (uint64_t i = 0; i < 100000; ++i)
    if (i % 3 != 0) REQUIRE(slots[k++] == 16 + 8 * i);
}
