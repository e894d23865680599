#pragma once
// Walking one block's section headers and loading one section's payload (format-spec.md §6).

#include <span>
#include <vector>

#include "format/gc_summary.hpp"
#include "format/section.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::format {

struct SectionRef {
  SectionHeader header;
  uint64_t offset = 0;  ///< file offset of the section header
};

/// List the data sections of the block SUMMARY names, checking every header, the block
/// start and end records against the summary, and the GC's decoded-size limit.
/// Errors: Truncated, ChecksumMismatch, CorruptSection, InconsistentData, LimitExceeded,
/// UnknownRequiredFeature.
Result<std::vector<SectionRef>> walk_block(std::span<const uint8_t> file, const GcSummary& summary,
                                           const ReaderLimits& limits);

/// Check the section limit, then checksum and decompress its payload into out.
Status load_section(std::span<const uint8_t> file, const SectionRef& ref, const ReaderLimits& limits,
                    std::vector<uint8_t>& out);

/// Check the section as load_section does, short of decompressing its payload.
Status check_section(std::span<const uint8_t> file, const SectionRef& ref, const ReaderLimits& limits);

/// One pass over the block of entry E in FILE: its XXH3-64 into BLOCK_HASH and, hashed from the
/// same bytes while they are in cache, each of WALKED's sections of type TYPE checked as
/// check_section checks it, so that the block's bytes are read once, not twice. With RELEASE
/// (FILE is a map of the recording), the pages of each stretch are given back once it is hashed
/// and checked. Errors: those of check_section, Truncated when the block passes FILE's end.
Status hash_block_checking(std::span<const uint8_t> file, const GcEntry& e, std::span<const SectionRef> walked,
                           uint16_t type, const ReaderLimits& limits, bool release, uint64_t& block_hash);

/// Give back the whole pages of section REF's bytes in FILE, a read-only map of the recording
/// that holds them (a hint: read again, they come from the file again).
void release_section_pages(std::span<const uint8_t> file, const SectionRef& ref) noexcept;

}  // namespace gcsnap::format
