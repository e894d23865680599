#pragma once
// Decoding all objects sections of one GC into an ObjectTable, several sections at once.

#include <span>

#include "format/block_walk.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::format {

/// Decode the objects sections `sections` (one GC's, in file order) into `out`, in file
/// order, on up to `threads` threads (0: one per core, at most 4). The table's fixed-width
/// columns are sized once from the headers' item counts and each section decodes straight
/// into its slice; references go through one vector per section and are joined at the end.
/// On error `out` is unspecified and the error is the one of the first failing section in
/// file order, as a sequential decode would report it. MAPPED: FILE is a read-only file map,
/// whose pages each section gives back once read (read again, they come from the file).
Status decode_object_sections(std::span<const uint8_t> file, std::span<const SectionRef> sections,
                              const ReaderLimits& limits, unsigned threads, bool mapped, ObjectTable& out);

}  // namespace gcsnap::format
