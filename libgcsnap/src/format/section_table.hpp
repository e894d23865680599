#pragma once
// One row per section type this library knows (format-spec.md §4.2): what the block walk keeps,
// what the size cap may drop, and the spec's name and section. Adding a section type is one
// row here (CONTRIBUTING.md "Adding a format section"); block_walk.cpp and walk_dropper.cpp
// read this table instead of lists of their own.

#include <cstdint>
#include <string_view>

#include "format/format_constants.hpp"

namespace gcsnap::format {

/// What a section type is to a reader.
enum class SectionRole : uint8_t {
  Frame,    ///< starts, ends or indexes blocks (block_scan.cpp, block_index.cpp read them)
  Data,     ///< a GC's data: walk_block keeps it for the reader and counts its decoded size
  Dropped,  ///< §6.17: stands where a dropped section was; its payload means nothing
};

struct SectionFacts {
  SectionType type;
  std::string_view name;  ///< as format-spec.md §4.2 names it
  std::string_view spec;  ///< the spec's section on its payload
  uint16_t since_minor;   ///< the 1.x minor version that added it
  SectionRole role;
  bool walk;              ///< a heap walk's section: the size cap may drop it (§6.17)
};

inline constexpr SectionFacts kSectionTable[] = {
    {SectionType::BlockStart, "block start", "§6.1", 0, SectionRole::Frame, false},
    {SectionType::GenerationBounds, "generation bounds", "§6.3", 0, SectionRole::Data, false},
    {SectionType::Roots, "roots", "§6.4", 0, SectionRole::Data, false},
    {SectionType::SurvivingRanges, "surviving ranges", "§6.5", 0, SectionRole::Data, false},
    {SectionType::MovedRanges, "moved ranges", "§6.5", 0, SectionRole::Data, false},
    {SectionType::Objects, "objects", "§6.6", 0, SectionRole::Data, true},
    {SectionType::Types, "types", "§6.7", 0, SectionRole::Data, false},
    {SectionType::Methods, "methods", "§6.8", 0, SectionRole::Data, false},
    {SectionType::DependentHandles, "dependent handles", "§6.11", 1, SectionRole::Data, true},
    {SectionType::TypeLayouts, "type field layouts", "§6.12", 1, SectionRole::Data, false},
    {SectionType::ReferenceSlots, "reference slots", "§6.13", 1, SectionRole::Data, true},
    {SectionType::StaticSlots, "static field slots", "§6.14", 1, SectionRole::Data, true},
    {SectionType::WalkSkipped, "walk skipped", "§6.15", 1, SectionRole::Data, false},
    {SectionType::MemoryAccounting, "memory accounting", "§6.16", 2, SectionRole::Data, false},
    {SectionType::Dropped, "dropped", "§6.17", 3, SectionRole::Dropped, false},
    {SectionType::AllocSamples, "allocation samples", "§6.18", 5, SectionRole::Data, false},
    {SectionType::AllocStacks, "allocation stacks", "§6.19", 5, SectionRole::Data, false},
    {SectionType::StackFunctions, "stack functions", "§6.20", 5, SectionRole::Data, false},
    {SectionType::SampledTypes, "sampled types", "§6.21", 5, SectionRole::Data, false},
    {SectionType::DelegateTargets, "delegate targets", "§6.22", 5, SectionRole::Data, true},
    {SectionType::StringValues, "string values", "§6.23", 5, SectionRole::Data, false},
    {SectionType::StringContents, "string contents", "§6.24", 5, SectionRole::Data, false},
    {SectionType::CollectionValues, "collection values", "§6.25", 5, SectionRole::Data, false},
    {SectionType::ValueCapture, "value capture", "§6.26", 5, SectionRole::Data, false},
    {SectionType::BlockAbort, "block abort", "§6.10", 0, SectionRole::Frame, false},
    {SectionType::BlockEnd, "block end", "§6.9", 0, SectionRole::Frame, false},
    {SectionType::Index, "block index", "§7.1", 0, SectionRole::Frame, false},
};

/// The row of section type TYPE; nullptr for a type this library does not know.
constexpr const SectionFacts* find_section_facts(uint64_t type) noexcept {
  for (const SectionFacts& facts : kSectionTable) {
    if (static_cast<uint64_t>(facts.type) == type) return &facts;
  }
  return nullptr;
}

/// Whether TYPE is a GC's data section this reader decodes (walk_block keeps it; others skip).
constexpr bool is_known_data_section(uint64_t type) noexcept {
  const SectionFacts* facts = find_section_facts(type);
  return facts && facts->role == SectionRole::Data;
}

/// §6.17: whether TYPE is a heap walk's section, which a writer under a size cap may drop.
constexpr bool is_droppable_section(uint64_t type) noexcept {
  const SectionFacts* facts = find_section_facts(type);
  return facts && facts->walk;
}

}  // namespace gcsnap::format
