#include "sample_recording.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "gcsnap/enum_names.hpp"

namespace gcsnap::e2e {
namespace {

std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) FAIL(name << " is not set: run this test through ctest (tests/e2e/CMakeLists.txt)");
  return value;
}

std::string describe(const Error& error) {
  std::ostringstream out;
  out << error_code_name(error.code) << " at offset 0x" << std::hex << error.offset << ": " << error.detail;
  return out.str();
}

template <typename T>
T take(Result<T> result, const char* what) {
  if (!result) FAIL(what << " failed: " << describe(result.error()));
  return std::move(result).value();
}

}  // namespace

uint64_t SampleFacts::number(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) FAIL("the sample app's facts line has no '" << key << "'");
  return std::stoull(it->second);
}

const Recording& sample_recording() {
  static std::unique_ptr<Recording> recording = [] {
    std::string path = required_env("GCSNAP_E2E_RECORDING");
    auto opened = Recording::open(path);
    if (!opened) FAIL("cannot open " << path << ": " << describe(opened.error()));
    return std::move(opened).value();
  }();
  return *recording;
}

const SampleFacts& sample_facts() {
  static SampleFacts facts = [] {
    std::string path = required_env("GCSNAP_E2E_FACTS");
    std::ifstream in(path);
    if (!in) FAIL("cannot read " << path);
    SampleFacts parsed;
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("gcsnap-sample: mode=", 0) != 0) continue;
      std::istringstream words(line.substr(line.find(' ') + 1));
      std::string word;
      while (words >> word) {
        auto eq = word.find('=');
        if (eq != std::string::npos) parsed.values[word.substr(0, eq)] = word.substr(eq + 1);
      }
    }
    if (parsed.values.empty()) FAIL(path << " has no 'gcsnap-sample: mode=...' facts line");
    return parsed;
  }();
  return facts;
}

GcView load_gc(const Recording& recording, size_t index) {
  REQUIRE(index < recording.gcs().size());
  GcView gc;
  gc.index = index;
  gc.entry = recording.gcs()[index];
  gc.bounds = take(recording.read_generation_bounds(index), "read_generation_bounds");
  std::sort(gc.bounds.begin(), gc.bounds.end(),
            [](const GenerationRange& a, const GenerationRange& b) { return a.start < b.start; });
  gc.roots = take(recording.read_roots(index), "read_roots");
  gc.ranges = take(recording.read_ranges(index), "read_ranges");
  if (gc.entry.has_heap_walk()) gc.objects = take(recording.read_objects(index), "read_objects");
  gc.names = take(recording.read_names(index), "read_names");
  return gc;
}

std::vector<size_t> induced_snapshots(const Recording& recording) {
  std::vector<size_t> found;
  auto gcs = recording.gcs();
  for (size_t i = 0; i < gcs.size(); ++i) {
    if (gcs[i].info.reason == GcReason::Induced && gcs[i].has_heap_walk()) found.push_back(i);
  }
  return found;
}

std::optional<Generation> generation_in_bounds(const std::vector<GenerationRange>& bounds, uint64_t address) {
  auto after = std::upper_bound(bounds.begin(), bounds.end(), address,
                                [](uint64_t a, const GenerationRange& r) { return a < r.start; });
  // Walk back over every range starting at or below ADDRESS: nothing promises they never overlap.
  for (auto it = after; it != bounds.begin();) {
    --it;
    if (address - it->start < it->length) return it->generation;
  }
  return std::nullopt;
}

std::optional<size_t> find_object(const ObjectTable& objects, uint64_t address) {
  auto it = std::lower_bound(objects.addresses.begin(), objects.addresses.end(), address);
  if (it == objects.addresses.end() || *it != address) return std::nullopt;
  return static_cast<size_t>(it - objects.addresses.begin());
}

uint32_t find_type_id(const NameTable& names, std::string_view name) {
  for (const TypeRecord& type : names.types()) {
    if (type.name == name) return type.id;
  }
  return 0;
}

size_t count_objects(const GcView& gc, std::string_view name) {
  uint32_t id = find_type_id(gc.names, name);
  if (id == 0) return 0;
  return static_cast<size_t>(std::count(gc.objects.type_ids.begin(), gc.objects.type_ids.end(), id));
}

std::string_view type_name_at(const GcView& gc, uint64_t address) {
  auto i = find_object(gc.objects, address);
  if (!i) return {};
  const TypeRecord* type = gc.names.find_type(gc.objects.type_ids[*i]);
  return type ? type->name : std::string_view{};
}

}  // namespace gcsnap::e2e
