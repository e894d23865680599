#pragma once
// Decoders of the allocation-sample sections (format-spec.md §6.18-§6.21), for the readers in
// alloc_names.cpp and verify.cpp (the public API is gcsnap/alloc_samples.hpp).

#include <vector>

#include "gcsnap/alloc_samples.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::alloc_detail {

/// Append one section's rows to OUT (unsorted). Errors: CorruptSection.
Status decode_samples(const Recording::SectionPayload& s, std::vector<AllocSample>& out);
Status decode_stacks(const Recording::SectionPayload& s, std::vector<AllocStack>& out);
Status decode_functions(const Recording::SectionPayload& s, uint64_t max_name, std::vector<StackFunction>& out);
Status decode_sampled_types(const Recording::SectionPayload& s, uint64_t max_name, std::vector<SampledType>& out);
/// Decode every allocation section of one block (verify). Errors: those above; OutOfMemory.
Status verify_alloc_block(const Recording& recording, size_t gc_pos);

}  // namespace gcsnap::alloc_detail
