// Named statics without a runtime (format-spec.md §6.14, docs/shim.md "Field names"): which
// metadata fields are reference statics, the per-(module, type) cache of StaticSlotTable
// against a fake runtime, and the writer thread writing the table into heap-walk GCs only.
#include <unistd.h>

#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "field_signature.hpp"
#include "gcsnap/reader.hpp"
#include "recorder.hpp"
#include "static_slots.hpp"
#include "writer_thread.hpp"

using namespace gcsnap;
using namespace gcsnap::shim;

namespace {

constexpr uint32_t kStatic = field_attributes::kStatic;

/// A runtime with modules of types whose load and initialisation the test controls.
class FakeStatics final : public StaticsRuntime {
 public:
  struct Type {
    StaticTypeInfo info;
    uint64_t class_id = 0;  ///< 0: not loaded
    bool generic = false;
    std::map<uint32_t, uint64_t> addresses;  ///< field -> slot once initialised
    std::map<uint32_t, Lookup> refusals;     ///< field -> Never (thread static ...)
  };
  bool module_types(uint64_t module, std::vector<StaticTypeInfo>& out) override {
    ++scans[module];
    if (unreadable.count(module)) return false;
    for (const Type& t : modules[module]) out.push_back(t.info);
    return true;
  }
  Lookup class_of(uint64_t module, const StaticTypeInfo& type, uint64_t& class_id) override {
    ++class_calls;
    const Type& t = find(module, type.token);
    if (t.generic) return Lookup::Never;
    class_id = t.class_id;
    return t.class_id ? Lookup::Found : Lookup::NotYet;
  }
  Lookup static_address(uint64_t module, uint64_t class_id, uint32_t field, uint64_t& address) override {
    ++address_calls;
    for (const Type& t : modules[module]) {
      if (t.class_id != class_id) continue;
      if (auto r = t.refusals.find(field); r != t.refusals.end()) return r->second;
      auto a = t.addresses.find(field);
      if (a == t.addresses.end()) return Lookup::NotYet;  // class not initialised yet
      address = a->second;
      return Lookup::Found;
    }
    return Lookup::Never;
  }
  const Type& find(uint64_t module, uint32_t token) {
    for (const Type& t : modules[module])
      if (t.info.token == token) return t;
    FAIL("unknown type");
    static Type none;
    return none;
  }
  Type& type(uint64_t module, uint32_t token) { return const_cast<Type&>(find(module, token)); }

  std::map<uint64_t, std::vector<Type>> modules;
  std::map<uint64_t, int> scans;
  std::set<uint64_t> unreadable;
  int class_calls = 0;
  int address_calls = 0;
};

FakeStatics::Type type_with(uint32_t token, std::vector<std::pair<uint32_t, std::string>> fields) {
  FakeStatics::Type t;
  t.info.token = token;
  t.info.probe_method = token + 0x100;
  for (auto& [field, name] : fields) t.info.fields.push_back({field, name});
  return t;
}

std::vector<std::string> names_of(const StaticSlotTable& table) {
  std::vector<std::string> out;
  for (const NamedStatic& s : table.slots()) out.push_back(s.name);
  return out;
}

}  // namespace

TEST_CASE("reference statics by metadata: static, not literal, not RVA, reference signature", "[shim][statics]") {
  const uint8_t klass[] = {0x06, 0x12, 0x08};        // FIELD CLASS token
  const uint8_t string[] = {0x06, 0x0e};             // FIELD STRING
  const uint8_t generic_class[] = {0x06, 0x15, 0x12, 0x08, 0x01, 0x0e};  // Dictionary<string,...>-like
  const uint8_t generic_struct[] = {0x06, 0x15, 0x11, 0x08, 0x01, 0x0e}; // KeyValuePair<...>
  const uint8_t int32[] = {0x06, 0x08};
  const uint8_t modified[] = {0x06, 0x1f, 0x42, 0x1d, 0x1c};  // modreq(volatile) object[]
  CHECK(is_reference_static(kStatic, klass, sizeof klass));
  CHECK(is_reference_static(kStatic, string, sizeof string));
  CHECK(is_reference_static(kStatic, generic_class, sizeof generic_class));
  CHECK(is_reference_static(kStatic, modified, sizeof modified));
  CHECK_FALSE(is_reference_static(kStatic, generic_struct, sizeof generic_struct));  // boxed by the runtime
  CHECK_FALSE(is_reference_static(kStatic, int32, sizeof int32));
  CHECK_FALSE(is_reference_static(0, klass, sizeof klass));  // an instance field
  CHECK_FALSE(is_reference_static(kStatic | field_attributes::kLiteral, string, sizeof string));  // const
  CHECK_FALSE(is_reference_static(kStatic | field_attributes::kHasFieldRva, klass, sizeof klass));
  CHECK_FALSE(is_reference_static(kStatic, klass, 1));  // cut signature
  CHECK_FALSE(is_reference_static(kStatic, nullptr, 0));
  const uint8_t not_a_field[] = {0x07, 0x12, 0x08};
  CHECK_FALSE(is_reference_static(kStatic, not_a_field, sizeof not_a_field));
}

TEST_CASE("a field typed by a generic parameter gives the parameter's number", "[shim][fields]") {
  const uint8_t var1[] = {0x06, 0x13, 0x01};              // FIELD VAR 1 (TStateMachine of the async box)
  const uint8_t var_modified[] = {0x06, 0x1f, 0x42, 0x13, 0x00};  // modreq(volatile) VAR 0
  const uint8_t var_two_bytes[] = {0x06, 0x13, 0x81, 0x02};      // VAR 258 (compressed in two bytes)
  const uint8_t mvar[] = {0x06, 0x1e, 0x00};              // MVAR: a method's, not the class's
  const uint8_t klass[] = {0x06, 0x12, 0x08};
  CHECK(field_signature_type_parameter(var1, sizeof var1) == 1);
  CHECK(field_signature_type_parameter(var_modified, sizeof var_modified) == 0);
  CHECK(field_signature_type_parameter(var_two_bytes, sizeof var_two_bytes) == 258);
  CHECK(field_signature_type_parameter(mvar, sizeof mvar) == -1);
  CHECK(field_signature_type_parameter(klass, sizeof klass) == -1);
  CHECK(field_signature_type_parameter(var1, 2) == -1);  // cut before the number
  CHECK(field_signature_type_parameter(nullptr, 0) == -1);
  // Until the instantiation says otherwise, such a field is a reference.
  CHECK(field_signature_flags(var1, sizeof var1) == field_flags::kReference);
}

TEST_CASE("statics table: resolved once, pending types retried, generic ones never", "[shim][statics]") {
  FakeStatics rt;
  rt.modules[1] = {type_with(0x02000002, {{0x04000001, "Zoo.Cache.Orders"}, {0x04000002, "Zoo.Cache.Archive"}}),
                   type_with(0x02000003, {{0x04000003, "Zoo.Later.Items"}}),
                   type_with(0x02000004, {{0x04000004, "Zoo.Box.Shared"}})};
  rt.type(1, 0x02000002).class_id = 0xC1;
  rt.type(1, 0x02000002).addresses = {{0x04000001, 0x7000}, {0x04000002, 0x7008}};
  rt.type(1, 0x02000004).generic = true;

  StaticSlotTable table;
  table.add_module(1);
  table.add_module(1);  // a load callback and the attach catch-up both saw it
  table.refresh(rt);
  CHECK(rt.scans[1] == 1);
  REQUIRE(table.slots().size() == 2);
  CHECK(table.slots()[0].address == 0x7000);
  CHECK(table.slots()[0].name == "Zoo.Cache.Orders");
  CHECK(table.slots()[1].address == 0x7008);
  CHECK(table.slots()[1].name == "Zoo.Cache.Archive");
  CHECK(table.stats().types_pending == 1);  // Zoo.Later is not loaded
  CHECK(table.stats().skipped_fields == 1);  // the generic type's field

  // Nothing new: only the pending type is asked again, the module is not rescanned.
  const int class_calls = rt.class_calls, address_calls = rt.address_calls;
  table.refresh(rt);
  CHECK(rt.scans[1] == 1);
  CHECK(rt.class_calls == class_calls + 1);
  CHECK(rt.address_calls == address_calls);
  CHECK(table.slots().size() == 2);

  // Loaded but not initialised: asked again; initialised: named, and never asked again.
  rt.type(1, 0x02000003).class_id = 0xC3;
  table.refresh(rt);
  CHECK(table.slots().size() == 2);
  CHECK(table.stats().types_pending == 1);
  rt.type(1, 0x02000003).addresses = {{0x04000003, 0x6FF8}};
  table.refresh(rt);
  CHECK(names_of(table) == std::vector<std::string>{"Zoo.Later.Items", "Zoo.Cache.Orders", "Zoo.Cache.Archive"});
  CHECK(table.stats().types_pending == 0);
  const int calls = rt.class_calls + rt.address_calls;
  table.refresh(rt);
  CHECK(rt.class_calls + rt.address_calls == calls);
}

TEST_CASE("statics table: thread statics skipped, duplicates named by neither, unloaded modules dropped",
          "[shim][statics]") {
  FakeStatics rt;
  rt.modules[1] = {type_with(0x02000002, {{0x04000001, "A.T.Ok"}, {0x04000002, "A.T.PerThread"}})};
  rt.type(1, 0x02000002).class_id = 0xC1;
  rt.type(1, 0x02000002).addresses = {{0x04000001, 0x7000}};
  rt.type(1, 0x02000002).refusals = {{0x04000002, Lookup::Never}};
  rt.modules[2] = {type_with(0x02000002, {{0x04000001, "B.U.Same"}, {0x04000009, "B.U.Other"}})};
  rt.type(2, 0x02000002).class_id = 0xC2;
  rt.type(2, 0x02000002).addresses = {{0x04000001, 0x9000}, {0x04000009, 0x7000}};  // 0x7000 twice
  rt.modules[3] = {type_with(0x02000002, {{0x04000001, "C.V.W"}})};
  rt.unreadable.insert(3);

  StaticSlotTable table;
  table.add_module(1);
  table.add_module(2);
  table.add_module(3);
  table.refresh(rt);
  CHECK(names_of(table) == std::vector<std::string>{"B.U.Same"});
  CHECK(table.stats().skipped_fields == 1);
  CHECK(table.stats().modules == 3);

  table.remove_module(2);
  table.refresh(rt);
  CHECK(names_of(table) == std::vector<std::string>{"A.T.Ok"});
}

namespace {

class NoQueries final : public RuntimeQueries {
 public:
  TypeName type_name(uint64_t class_id) override { return {"T" + std::to_string(class_id), "m.dll", true}; }
  uint64_t object_size(uint64_t) override { return 24; }
  uint64_t class_of(uint64_t) override { return 0; }
  uint32_t component_count(uint64_t) override { return 0; }
  std::string method_name(uint64_t) override { return {}; }
  bool type_layout(uint64_t, uint64_t, OwnedLayout&) override { return false; }
  const uint64_t* object_words(uint64_t) override { return nullptr; }
};

}  // namespace

TEST_CASE("writer thread: static slots go into heap-walk GCs only, refreshed at each", "[shim][statics]") {
  const std::string path = "shim_statics_" + std::to_string(::getpid()) + ".snap";
  FakeStatics rt;
  rt.modules[1] = {type_with(0x02000002, {{0x04000001, "Zoo.Cache.Orders"}}),
                   type_with(0x02000003, {{0x04000002, "Zoo.Later.Items"}})};
  rt.type(1, 0x02000002).class_id = 0xC1;
  rt.type(1, 0x02000002).addresses = {{0x04000001, 0x1010}};
  StaticSlotTable table;
  table.add_module(1);
  {
    auto writer = Writer::create(path);
    REQUIRE(writer.is_ok());
    bool failed = false;
    WriterThread sink(std::move(writer).value(), [&](const char*) { failed = true; });
    sink.set_statics(&table, &rt);
    NoQueries queries;
    RecorderOptions options;
    options.policy = SnapshotPolicy::Gen2;
    Recorder recorder(options, queries, sink);
    std::vector<GenerationRange> bounds = {{Generation::Gen2, 0x1000, 0x800, 0x1000}};
    auto walked_gc = [&] {
      REQUIRE(recorder.on_gc_started(0x1F, true, 1000));
      std::vector<uint64_t> refs = {0x1100};
      CHECK(recorder.on_object_references(0x1000, 0xA, refs));
      CHECK(recorder.on_object_references(0x1100, 0xB, {}));
      recorder.on_gc_finished(bounds, 2000);
    };
    walked_gc();
    (void)recorder.on_gc_started(0x1, false, 3000);  // gen0 under the gen2 policy: no walk
    recorder.on_gc_finished(bounds, 4000);
    // The writer thread works on its own: let it write both GCs before the fake changes.
    for (int i = 0; i < 2000 && sink.stats().gcs_written < 2; ++i) ::usleep(5000);
    REQUIRE(sink.stats().gcs_written == 2);
    // Zoo.Later is initialised between the GCs: the next walked GC names it too.
    rt.type(1, 0x02000003).class_id = 0xC3;
    rt.type(1, 0x02000003).addresses = {{0x04000002, 0x1018}};
    walked_gc();
    REQUIRE(sink.finish());
    CHECK_FALSE(failed);
  }
  auto opened = Recording::open(path);
  REQUIRE(opened.is_ok());
  auto rec = std::move(opened).value();
  REQUIRE(rec->gcs().size() == 3);
  std::string storage;
  auto first = rec->read_static_slots(0, storage);
  REQUIRE(first.is_ok());
  REQUIRE(first.value().size() == 1);
  CHECK(first.value()[0].address == 0x1010);
  CHECK(first.value()[0].name == "Zoo.Cache.Orders");
  auto unwalked = rec->read_static_slots(1, storage);
  REQUIRE(unwalked.is_ok());
  CHECK(unwalked.value().empty());
  std::string storage2;
  auto third = rec->read_static_slots(2, storage2);
  REQUIRE(third.is_ok());
  REQUIRE(third.value().size() == 2);
  CHECK(third.value()[0].name == "Zoo.Cache.Orders");
  CHECK(third.value()[1].name == "Zoo.Later.Items");
  ::unlink(path.c_str());
}
