#pragma once
// What a GC's memory accounting (format-spec.md §6.16) says, in the words `info` and the report
// use: the one-line summary, a bar, and the advice when most memory is not managed or the heap
// is mostly free space.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

/// "managed heap 700.0 MiB of 2.1 GiB resident: 500.0 MiB live objects, 200.0 MiB free or
/// fragmented; 1.4 GiB native and other; 12.0 MiB held by gcsnap" (the live part only when the
/// GC had a walk, gcsnap's only when the record says what the recorder held).
std::string memory_summary(const MemoryAccounting& m);

/// "[###===........~]  # live objects  = free or fragmented  . native and other  ~ gcsnap": WIDTH
/// cells between the brackets, each part at least one cell when it is not zero (gcsnap's part
/// and legend only when the record says what the recorder held).
std::string memory_bar(const MemoryAccounting& m, size_t width = 50);

/// Advice lines: native and other memory grew since the first GC with a record (which kinds,
/// and the tools that see native memory), or most of the resident memory is not the managed
/// heap (the runtime's own footprint, or the tools when it is larger); most of the heap is free
/// space (what the recording shows holding it: pinned handles, pinned-object-heap and large
/// objects, from GC I's walk).
std::vector<std::string> memory_advice(const Recording& r, size_t i, const MemoryAccounting& m);

/// The last GC with a memory record, preferring the last one with a heap walk (its live
/// bytes are known); nullopt when the recording has none.
std::optional<size_t> memory_summary_gc(const Recording& r);

}  // namespace gcsnap::cli
