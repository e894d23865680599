#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "settings.hpp"

using namespace gcsnap::shim;

namespace {

SettingsResult parse(std::map<std::string, std::string> env) {
  return parse_settings([&](const char* name) -> const char* {
    auto found = env.find(name);
    return found == env.end() ? nullptr : found->second.c_str();
  });
}

}  // namespace

TEST_CASE("settings: defaults and every variable", "[shim][settings]") {
  auto plain = parse({{"GCSNAP_OUTPUT", "/tmp/x.snap"}});
  REQUIRE(plain.error.empty());
  CHECK(plain.settings.policy == SnapshotPolicy::Default);
  CHECK(plain.settings.max_memory_bytes == 1024ull << 20);
  CHECK(plain.settings.max_snapshots == UINT64_MAX);
  CHECK(plain.settings.control_socket);
  CHECK_FALSE(plain.settings.walk_only);
  CHECK_FALSE(plain.settings.walk_times);
  CHECK_FALSE(plain.settings.diagnostics);
  CHECK(plain.settings.gc_reason_events);

  auto full = parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_POLICY", "gen2"}, {"GCSNAP_MAX_SNAPSHOTS", "3"},
                     {"GCSNAP_MAX_MEMORY_MB", "64"}, {"GCSNAP_CONTROL", "0"}, {"GCSNAP_WALK_ONLY", "1"},
                     {"GCSNAP_WALK_TIMES", "1"}, {"GCSNAP_DIAGNOSTICS", "1"}, {"GCSNAP_GC_REASON_EVENTS", "0"}});
  CHECK(full.settings.walk_only);
  CHECK(full.settings.walk_times);
  CHECK(full.settings.diagnostics);
  CHECK_FALSE(full.settings.gc_reason_events);
  REQUIRE(full.error.empty());
  CHECK(full.settings.policy == SnapshotPolicy::Gen2);
  CHECK(full.settings.max_snapshots == 3);
  CHECK(full.settings.max_memory_bytes == 64ull << 20);
  CHECK_FALSE(full.settings.control_socket);
}

TEST_CASE("settings: bad values say why", "[shim][settings]") {
  CHECK(parse({}).error.find("GCSNAP_OUTPUT") != std::string::npos);
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_POLICY", "sometimes"}}).error.find("GCSNAP_POLICY") != std::string::npos);
  CHECK_FALSE(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_MAX_SNAPSHOTS", "3x"}}).error.empty());
  CHECK_FALSE(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_MAX_MEMORY_MB", "0"}}).error.empty());
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_ON_HEAP_GROWTH", "12x"}}).error.find("GCSNAP_ON_HEAP_GROWTH") !=
        std::string::npos);
  CHECK_FALSE(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_ON_HEAP_GROWTH", "0"}}).error.empty());
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_ON_HEAP_GROWTH", "33554432"}}).settings.heap_growth_bytes == 32u << 20);
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}}).settings.heap_growth_bytes == 0);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\non_heap_growth=1048576\n").settings.heap_growth_bytes ==
        1u << 20);
  CHECK_FALSE(parse_attach_settings("gcsnap-attach 1\nmode=record\non_heap_growth=0\n").error.empty());
  for (const char* name : {"default", "all", "gen2", "induced", "none"}) {
    auto policy = parse_policy(name);
    REQUIRE(policy);
    CHECK(policy_name(*policy) == name);
  }
}

TEST_CASE("attach settings: the client data of an attach request", "[shim][settings]") {
  auto snapshot = parse_attach_settings("gcsnap-attach 1\nmode=snapshot\npolicy=none\nowner_pid=42\ndeadline_s=360\n");
  REQUIRE(snapshot.error.empty());
  CHECK(snapshot.settings.mode == AttachMode::Snapshot);
  CHECK(snapshot.settings.policy == SnapshotPolicy::None);
  CHECK(snapshot.settings.owner_pid == 42);
  CHECK(snapshot.settings.deadline_s == 360);

  auto record = parse_attach_settings("gcsnap-attach 1\nmode=record\npolicy=gen2\nmax_memory_mb=64\n"
                                      "max_snapshots=3\nfuture_key=whatever");
  REQUIRE(record.error.empty());
  CHECK(record.settings.mode == AttachMode::Record);
  CHECK(record.settings.policy == SnapshotPolicy::Gen2);
  CHECK(record.settings.max_memory_bytes == 64ull << 20);
  CHECK(record.settings.max_snapshots == 3);
  CHECK(record.settings.owner_pid == 0);
  CHECK(record.settings.deadline_s == 0);
}

TEST_CASE("attach settings: bad client data says why", "[shim][settings]") {
  CHECK(parse_attach_settings("").error.find("gcsnap-attach 1") != std::string::npos);
  CHECK(parse_attach_settings("gcsnap-attach 2\nmode=snapshot").error.find("another gcsnap version") != std::string::npos);
  CHECK(parse_attach_settings("gcsnap-attach 1\n").error.find("no mode") != std::string::npos);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=sometimes").error.find("mode") != std::string::npos);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\npolicy=often").error.find("policy") != std::string::npos);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\nowner_pid=-1").error.find("owner_pid") != std::string::npos);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\nmax_memory_mb=0").error.find("max_memory_mb") != std::string::npos);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\nnoequals").error.find("no '='") != std::string::npos);
  CHECK_FALSE(parse_attach_settings(std::string(5000, 'x')).error.empty());
}

TEST_CASE("settings: the source of the GC facts", "[shim][settings]") {
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}}).settings.source == RecordSource::Profiler);
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_SOURCE", "events"}}).settings.source == RecordSource::Events);
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_SOURCE", "profiler"}}).settings.source == RecordSource::Profiler);
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_SOURCE", "trace"}}).error.find("GCSNAP_SOURCE") != std::string::npos);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\nsource=events\n").settings.source == RecordSource::Events);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\n").settings.source == RecordSource::Profiler);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\nsource=both").error.find("source") != std::string::npos);
}

TEST_CASE("settings: string content only when asked, within its range", "[shim][settings]") {
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}}).settings.capture_strings == 0);
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_CAPTURE_STRINGS", "64"}}).settings.capture_strings == 64);
  CHECK(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_CAPTURE_STRINGS", "4097"}}).error.find("GCSNAP_CAPTURE_STRINGS") !=
        std::string::npos);
  CHECK_FALSE(parse({{"GCSNAP_OUTPUT", "o"}, {"GCSNAP_CAPTURE_STRINGS", "all"}}).error.empty());
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\ncapture_strings=16\n").settings.capture_strings == 16);
  CHECK(parse_attach_settings("gcsnap-attach 1\nmode=record\n").settings.capture_strings == 0);
  CHECK_FALSE(parse_attach_settings("gcsnap-attach 1\nmode=record\ncapture_strings=-1\n").error.empty());
}
