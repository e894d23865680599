// The table of section facts (libgcsnap/src/format/section_table.hpp) against format-spec.md
// §4.2: each row's type, name and version stand in the spec's table of section types, and the
// types the walk keeps and the size cap drops are the ones the spec says.

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "format/section_table.hpp"
#include "gcsnap/reader.hpp"

using namespace gcsnap::format;

namespace {

std::string spec_text() {
  std::ifstream in(std::string(GCSNAP_GOLDEN_DIR) + "/../../format-spec.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// "| 0x0017 | dependent handles": the start of the type's row in the spec's table.
std::string spec_row(uint16_t type, std::string_view name) {
  char hex[8];
  std::snprintf(hex, sizeof(hex), "0x%04X", type);
  return std::string("| ") + hex + " | " + std::string(name);
}

}  // namespace

TEST_CASE("section table: one row per type, each as format-spec.md §4.2 names it") {
  const std::string spec = spec_text();
  REQUIRE(spec.find("## 4.") != std::string::npos);
  std::set<uint16_t> seen;
  for (const SectionFacts& facts : kSectionTable) {
    const auto type = static_cast<uint16_t>(facts.type);
    INFO(facts.name);
    CHECK(seen.insert(type).second);
    CHECK(find_section_facts(type) == &facts);
    // "| 0x0017 | dependent handles (1.1) |"; the block index is §7.1's, not in §4.2's table.
    const std::string row = spec_row(type, facts.name);
    const std::string versioned =
        facts.since_minor ? row + " (1." + std::to_string(facts.since_minor) + ")" : row;
    if (facts.type != SectionType::Index) CHECK(spec.find(versioned + " |") != std::string::npos);
    CHECK(spec.find("### " + std::string(facts.spec.substr(2)) + " ") != std::string::npos);
  }
  CHECK_FALSE(find_section_facts(0x0002));
  CHECK_FALSE(find_section_facts(0x00FD));
}

TEST_CASE("section table: the walk keeps the data sections, the size cap drops a walk's") {
  CHECK(is_known_data_section(static_cast<uint16_t>(SectionType::GenerationBounds)));
  CHECK(is_known_data_section(static_cast<uint16_t>(SectionType::StaticSlots)));
  CHECK(is_known_data_section(static_cast<uint16_t>(SectionType::MemoryAccounting)));
  CHECK_FALSE(is_known_data_section(static_cast<uint16_t>(SectionType::BlockStart)));
  CHECK_FALSE(is_known_data_section(static_cast<uint16_t>(SectionType::Dropped)));
  CHECK_FALSE(is_known_data_section(0x00FD));
  std::set<SectionType> droppable;
  for (const SectionFacts& facts : kSectionTable)
    if (is_droppable_section(static_cast<uint16_t>(facts.type))) droppable.insert(facts.type);
  CHECK(droppable == std::set<SectionType>{SectionType::Objects, SectionType::DependentHandles,
                                           SectionType::ReferenceSlots, SectionType::StaticSlots,
                                           SectionType::DelegateTargets});
}

TEST_CASE("section table: a known section reads through read_section_payloads as its read_* does") {
  auto rec = gcsnap::Recording::open(std::string(GCSNAP_GOLDEN_DIR) + "/memory-valid.snap");
  REQUIRE(rec);
  const gcsnap::Recording& r = **rec;
  REQUIRE(r.gcs().size() >= 2);
  const auto type = static_cast<uint16_t>(SectionType::MemoryAccounting);
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    INFO("GC at " << i);
    auto payloads = r.read_section_payloads(i, type);
    REQUIRE(payloads);
    auto memory = r.read_memory_accounting(i);
    REQUIRE(memory);
    REQUIRE(payloads->size() == (memory->has_value() ? 1u : 0u));
    if (!memory->has_value()) continue;
    const std::vector<uint8_t>& p = payloads->front();
    REQUIRE(p.size() >= 16);
    const uint32_t present = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    CHECK(present == (*memory)->present);
    uint64_t rss = 0;
    for (int k = 7; k >= 0; --k) rss = rss << 8 | p[16 + static_cast<size_t>(k)];
    CHECK(rss == (*memory)->rss_bytes);
  }
  // Roots come in chunks: a GC with roots has its sections, one without has none.
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    auto roots = r.read_section_payloads(i, static_cast<uint16_t>(SectionType::Roots));
    REQUIRE(roots);
    CHECK(roots->empty() == (r.gcs()[i].root_count == 0));
  }
  // A type the library does not know is skipped by the block walk.
  auto unknown = r.read_section_payloads(0, 0x001E);
  REQUIRE(unknown);
  CHECK(unknown->empty());
  auto beyond = r.read_section_payloads(r.gcs().size(), type);
  CHECK_FALSE(static_cast<bool>(beyond));
}
