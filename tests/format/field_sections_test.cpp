// The field-naming sections (format-spec.md §6.12-§6.14): round trips through the writer and
// reader, the writer's checks, and hostile or damaged sections.
#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "format/format_constants.hpp"
#include "format/section.hpp"
#include "gcsnap/gcsnap.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

// A heap walk in walk order (not address order), so the writer's sort must carry the slots.
struct Walk {
  std::vector<uint64_t> addresses{0x1100, 0x1000, 0x1040, 0x1200, 0x10a0};
  std::vector<uint32_t> types{2, 1, 3, 2, 1};
  std::vector<uint64_t> sizes{64, 48, 80, 40, 32};
  std::vector<uint8_t> gens{2, 2, 2, 0, 2};
  std::vector<uint32_t> counts{3, 2, 4, 0, 1};
  std::vector<uint64_t> refs{0x1000, 0x1040, 0x1000, 0x1100, 0x1200, 0x1000, 0x1040, 0x10a0, 0x1100, 0x1000};
  std::vector<uint32_t> slots{16, 24, 48, 8, 40, 16, 24, 32, kUnknownSlot, 8};
};

std::vector<FieldRecord> node_fields() { return {{8, 1, "Next"}, {16, 2, "Pair"}, {40, 1, "Value"}}; }

std::string write_walk(const std::string& path, uint64_t chunk_items, bool with_slots = true) {
  WriterOptions wo;
  wo.chunk_items = chunk_items;
  wo.background_compression = false;
  auto w = Writer::create(path, wo);
  REQUIRE(w);
  Writer& wr = **w;
  GcInfo gc{1, 0x7, GcReason::Induced, true, SnapshotTrigger::OnDemand, 1, 2, 1};
  REQUIRE(wr.begin_gc(gc).is_ok());
  TypeRecord types[] = {{1, 0x10, "App.Node", "App.dll"}, {2, 0x20, "System.Object[]", ""},
                        {3, 0x30, "App.Entry[]", "App.dll"}};
  REQUIRE(wr.add_types(types).is_ok());
  Walk k;
  if (with_slots)
    REQUIRE(wr.add_objects(k.addresses, k.types, k.sizes, k.gens, k.counts, k.refs, k.slots).is_ok());
  else
    REQUIRE(wr.add_objects(k.addresses, k.types, k.sizes, k.gens, k.counts, k.refs).is_ok());
  const auto fields = node_fields();
  std::vector<FieldRecord> entry{{0, 1, "key"}, {8, 1, "value"}};
  TypeLayout layouts[] = {{1, LayoutKind::Object, 0, 0, fields},
                          {2, LayoutKind::ReferenceArray, 16, 8, {}},
                          {3, LayoutKind::StructArray, 16, 24, entry}};
  REQUIRE(wr.add_type_layouts(layouts).is_ok());
  StaticSlot statics[] = {{0x1118, "App.Cache.Items"}, {0x1110, "App.Cache.First"}};
  REQUIRE(wr.add_static_slots(statics).is_ok());
  REQUIRE(wr.end_gc(gc).is_ok());
  REQUIRE(wr.close().is_ok());
  return path;
}

using Key = std::tuple<uint64_t, uint64_t, uint32_t>;  // source, target, slot

std::multiset<Key> expected_edges() {
  Walk k;
  std::multiset<Key> out;
  size_t r = 0;
  for (size_t i = 0; i < k.addresses.size(); ++i)
    for (uint32_t c = 0; c < k.counts[i]; ++c, ++r) out.insert({k.addresses[i], k.refs[r], k.slots[r]});
  return out;
}

std::vector<uint8_t> bytes_of(const std::string& path) {
  auto raw = read_file_bytes(path);
  return {reinterpret_cast<const uint8_t*>(raw.data()), reinterpret_cast<const uint8_t*>(raw.data()) + raw.size()};
}

std::unique_ptr<Recording> open_bytes(const std::vector<uint8_t>& b) {
  auto rec = Recording::from_bytes({reinterpret_cast<const std::byte*>(b.data()), b.size()});
  REQUIRE(rec);
  return std::move(rec).value();
}

// Offsets of the section headers of TYPE.
std::vector<size_t> find_sections(const std::vector<uint8_t>& b, format::SectionType type) {
  std::vector<size_t> out;
  size_t pos = format::kFileHeaderSize;
  while (pos + format::kSectionHeaderSize <= b.size()) {
    auto h = format::decode_section_header({b.data() + pos, b.size() - pos}, pos);
    if (!h) break;
    if (h->type == static_cast<uint16_t>(type)) out.push_back(pos);
    pos += format::kSectionHeaderSize + h->stored_size;
  }
  return out;
}

void rewrite_header(std::vector<uint8_t>& b, size_t offset, void (*change)(format::SectionHeader&)) {
  auto h = format::decode_section_header({b.data() + offset, b.size() - offset}, offset);
  REQUIRE(h);
  change(*h);
  format::encode_section_header(*h, b.data() + offset);
}

}  // namespace

TEST_CASE("reference slots, layouts and statics round-trip through several chunks") {
  const uint64_t chunk = GENERATE(2, 3, 100);
  CAPTURE(chunk);
  const std::string path = write_walk(temp_path("fields-roundtrip"), chunk);
  auto rec = Recording::open(path);
  REQUIRE(rec);
  const Recording& r = **rec;
  REQUIRE(r.gcs().size() == 1);
  CHECK(r.verify_gc(0).is_ok());
  auto plain = r.read_objects(0);
  REQUIRE(plain);
  CHECK(plain->reference_slots.empty());  // only when asked
  auto objects = r.read_objects(0, ObjectReadOptions{true});
  REQUIRE(objects);
  REQUIRE(objects->reference_slots.size() == objects->reference_targets.size());
  std::multiset<Key> got;
  for (size_t i = 0; i < objects->size(); ++i)
    for (uint64_t e = objects->reference_offsets[i]; e < objects->reference_offsets[i + 1]; ++e)
      got.insert({objects->addresses[i], objects->reference_targets[e], objects->reference_slots[e]});
  CHECK(got == expected_edges());

  auto names = r.read_names(0);
  REQUIRE(names);
  const TypeLayout* node = names->find_layout(1);
  REQUIRE(node);
  REQUIRE(node->fields.size() == 3);
  CHECK(node->fields[2].name == "Value");
  CHECK(node->fields[1].flags == field_flags::kStruct);
  const TypeLayout* entries = names->find_layout(3);
  REQUIRE(entries);
  CHECK(entries->kind == LayoutKind::StructArray);
  CHECK(entries->element_size == 24);
  CHECK(names->find_layout(4) == nullptr);

  std::string storage;
  auto statics = r.read_static_slots(0, storage);
  REQUIRE(statics);
  REQUIRE(statics->size() == 2);
  CHECK((*statics)[0].address == 0x1110);  // sorted by address
  CHECK((*statics)[0].name == "App.Cache.First");
  CHECK((*statics)[1].name == "App.Cache.Items");
  std::remove(path.c_str());
}

TEST_CASE("a GC written without slots reads with empty slots, and older sections are untouched") {
  const std::string path = write_walk(temp_path("fields-noslots"), 2, false);
  auto rec = Recording::open(path);
  REQUIRE(rec);
  CHECK((*rec)->verify_gc(0).is_ok());
  auto objects = (*rec)->read_objects(0, ObjectReadOptions{true});
  REQUIRE(objects);
  CHECK(objects->reference_slots.empty());
  CHECK(objects->reference_targets.size() == Walk{}.refs.size());
  CHECK(find_sections(bytes_of(path), format::SectionType::ReferenceSlots).empty());
  std::remove(path.c_str());
}

TEST_CASE("the writer refuses slots outside their object, mixed slot modes, and bad layouts") {
  WriterOptions wo;
  wo.background_compression = false;
  const std::string path = temp_path("fields-writer");
  auto w = Writer::create(path, wo);
  REQUIRE(w);
  Writer& wr = **w;
  GcInfo gc{1, 0x7, GcReason::Induced, true, SnapshotTrigger::OnDemand, 1, 2, 1};
  REQUIRE(wr.begin_gc(gc).is_ok());
  TypeRecord types[] = {{1, 0x10, "App.Node", "App.dll"}};
  REQUIRE(wr.add_types(types).is_ok());
  uint64_t a[] = {0x1000}, s[] = {24}, refs[] = {0x1000};
  uint32_t t[] = {1}, c[] = {1};
  uint8_t g[] = {0};
  uint32_t past[] = {24}, inside[] = {16}, wrong_length[] = {8, 16};
  CHECK(wr.add_objects(a, t, s, g, c, refs, past).error().code == ErrorCode::InvalidArgument);
  CHECK(wr.add_objects(a, t, s, g, c, refs, wrong_length).error().code == ErrorCode::InvalidArgument);
  REQUIRE(wr.add_objects(a, t, s, g, c, refs, inside).is_ok());
  uint64_t a2[] = {0x2000};
  CHECK(wr.add_objects(a2, t, s, g, c, refs).error().code == ErrorCode::InvalidArgument);
  std::vector<FieldRecord> decreasing{{16, 1, "B"}, {8, 1, "A"}};
  TypeLayout bad[] = {{1, LayoutKind::Object, 0, 0, decreasing}};
  CHECK(wr.add_type_layouts(bad).error().code == ErrorCode::InvalidArgument);
  TypeLayout undeclared[] = {{9, LayoutKind::Object, 0, 0, {}}};
  CHECK(wr.add_type_layouts(undeclared).error().code == ErrorCode::InvalidArgument);
  TypeLayout zero_element[] = {{1, LayoutKind::ReferenceArray, 16, 0, {}}};
  CHECK(wr.add_type_layouts(zero_element).error().code == ErrorCode::InvalidArgument);
  TypeLayout good[] = {{1, LayoutKind::Object, 0, 0, {}}};
  REQUIRE(wr.add_type_layouts(good).is_ok());
  CHECK(wr.add_type_layouts(good).error().code == ErrorCode::InvalidArgument);
  REQUIRE(wr.end_gc(gc).is_ok());
  REQUIRE(wr.close().is_ok());
  std::remove(path.c_str());
}

TEST_CASE("slots sections that do not pair with the objects sections are InconsistentData") {
  const std::string path = write_walk(temp_path("fields-pairing"), 2);
  const auto good = bytes_of(path);
  std::remove(path.c_str());
  const auto slots = find_sections(good, format::SectionType::ReferenceSlots);
  REQUIRE(slots.size() >= 2);

  SECTION("one slots section hidden as an unknown type") {
    auto b = good;
    rewrite_header(b, slots[1], [](format::SectionHeader& h) { h.type = 0x0030; });
    auto rec = open_bytes(b);
    CHECK(rec->read_objects(0).is_ok());  // objects alone still read
    CHECK(rec->read_objects(0, ObjectReadOptions{true}).error().code == ErrorCode::InconsistentData);
    CHECK(!rec->verify_gc(0).is_ok());
  }
  SECTION("a slots section claims one reference more") {
    auto b = good;
    rewrite_header(b, slots[0], [](format::SectionHeader& h) { h.item_count += 1; });
    auto rec = open_bytes(b);
    CHECK(!rec->read_objects(0, ObjectReadOptions{true}).is_ok());
  }
  SECTION("a slots section read as a layouts section") {
    auto b = good;
    rewrite_header(b, slots[0], [](format::SectionHeader& h) { h.type = 0x0018; });
    auto rec = open_bytes(b);
    auto names = rec->read_names(0);
    REQUIRE(!names);
    CHECK(names.error().code == ErrorCode::CorruptSection);
  }
  SECTION("a layouts section read as a statics section") {
    auto b = good;
    const auto layouts = find_sections(good, format::SectionType::TypeLayouts);
    REQUIRE(!layouts.empty());
    rewrite_header(b, layouts[0], [](format::SectionHeader& h) { h.type = 0x001A; });
    auto rec = open_bytes(b);
    std::string storage;
    CHECK(!rec->read_static_slots(0, storage).is_ok());
  }
  SECTION("the file cut inside a slots section keeps no partial GC") {
    auto b = good;
    b.resize(slots[1] + 20);
    auto rec = open_bytes(b);
    CHECK(rec->gcs().empty());
    CHECK(rec->end() == FileEnd::Truncated);
  }
}

TEST_CASE("name_slot names fields, struct interiors, elements and refuses the rest") {
  const auto fields = node_fields();
  const TypeLayout node{1, LayoutKind::Object, 0, 0, fields};
  CHECK(name_slot(&node, 8).text == "Next");
  CHECK(name_slot(&node, 8).kind == EdgeNameKind::Field);
  CHECK(name_slot(&node, 24).text == "Pair+8");
  CHECK(name_slot(&node, 16).text == "Pair+0");  // a reference first in the struct
  // An embedded struct whose fields are known (a generic box's state machine): the inner
  // field at the struct's own offset wins over "+0", and a later one is named too.
  const std::vector<FieldRecord> box{{8, 1, "Context"}, {16, 1, "StateMachine.<held>5__2"},
                                     {16, 2, "StateMachine"}, {32, 1, "StateMachine.<other>5__3"}};
  const TypeLayout box_layout{4, LayoutKind::Object, 0, 0, box};
  CHECK(name_slot(&box_layout, 16).text == "StateMachine.<held>5__2");
  CHECK(name_slot(&box_layout, 32).text == "StateMachine.<other>5__3");
  CHECK(name_slot(&box_layout, 24).text == "StateMachine+8");
  CHECK(name_slot(&node, 40).text == "Value");
  CHECK(name_slot(&node, 48).kind == EdgeNameKind::Unknown);  // past a reference field: not a guess
  CHECK(name_slot(&node, 0).kind == EdgeNameKind::Unknown);
  CHECK(name_slot(nullptr, 8).kind == EdgeNameKind::Unknown);
  CHECK(name_slot(&node, kUnknownSlot).kind == EdgeNameKind::Unknown);
  const TypeLayout array{2, LayoutKind::ReferenceArray, 16, 8, {}};
  CHECK(name_slot(&array, 16).text == "[0]");
  CHECK(name_slot(&array, 16 + 17 * 8).text == "[17]");
  CHECK(name_slot(&array, 8).kind == EdgeNameKind::Unknown);  // the length field
  std::vector<FieldRecord> entry{{0, 1, "key"}, {8, 1, "value"}};
  const TypeLayout entries{3, LayoutKind::StructArray, 16, 24, entry};
  CHECK(name_slot(&entries, 16 + 17 * 24 + 8).text == "[17].value");
  CHECK(name_slot(&entries, 16 + 2 * 24).text == "[2].key");
  const TypeLayout unknown_struct{3, LayoutKind::StructArray, 16, 24, {}};
  CHECK(name_slot(&unknown_struct, 16 + 24 + 8).text == "[1]+8");
}
