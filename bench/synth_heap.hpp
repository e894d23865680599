#pragma once
// Synthetic recordings with the shape of real .NET heaps, written with gcsnap::Writer.
//
// Two heap walks of one recording, GC 1 and GC 2 (both gen2, consecutive numbers), so that
// object identity can be followed from one to the other through GC 2's ranges:
//  * objects laid out in 4 MiB regions, address order = allocation order;
//  * types: ~3000, Zipf-like skew (a few dozen types make most objects); a type fixes the
//    size of its instances except for array/string types, whose sizes vary (long tail up to
//    tens of KiB; mostly 24-100 bytes overall);
//  * references: out-degree 0..~200, mean ~2.5; most targets within a few dozen objects,
//    some to random objects, some to a few hundred hub objects (shared strings, types);
//  * roots: ~1 % of objects (handles, stack, a few finalizer/weak);
//  * GC 2: ~12 % of GC 1's objects die in runs; in 30 % of the regions the survivors are
//    compacted (moved ranges), elsewhere they stay (surviving ranges); ~10 % new objects
//    are allocated in fresh regions after the old ones.

#include <cstdint>
#include <string>
#include <vector>

#include <gcsnap/gcsnap.hpp>

namespace synth {

/// One heap walk in the writer's input form (columns + per-object reference counts).
struct Walk {
  std::vector<uint64_t> addresses, sizes, references;
  std::vector<uint32_t> type_ids, reference_counts;
  std::vector<uint8_t> generations;
  std::vector<uint64_t> root_objects, root_ids;
  std::vector<uint8_t> root_kinds, root_flags;
  std::vector<gcsnap::GenerationRange> bounds;
  // Ranges reported at this GC (empty for the first one).
  std::vector<uint64_t> surviving_starts, surviving_lengths;
  std::vector<uint64_t> moved_old, moved_new, moved_lengths;
  size_t size() const { return addresses.size(); }
  uint64_t raw_bytes() const;  ///< bytes of the columns handed to the writer
};

struct Recording {
  std::vector<std::string> type_names;  ///< index = type id - 1
  Walk a, b;
};

/// Build both walks; n = objects of the first walk. Deterministic for a seed.
Recording generate(size_t n, uint64_t seed = 42);

/// A recording of many heap walks (gcsnap_bench series): GC 1 as `generate`'s first walk,
/// then at every GC ~12 % of the objects die in runs, survivors move as the GC's ranges say
/// (object identity holds), as many new objects as died are allocated, and a planted leak
/// grows: LEAK_PER_WALK new App.Leak.RequestEntry objects, a chain held by one rooted
/// App.Leak.RequestLog. Holds two walks at a time, never the whole series.
struct SeriesOptions {
  size_t walks = 10;
  size_t objects = 1000000;   ///< per walk, about (the leak adds to it)
  size_t leak_per_walk = 0;   ///< 0: objects / 1000
  uint64_t seed = 42;
};

/// Write the series to W, GC 1 .. walks, deterministic for a seed.
gcsnap::Status write_series(gcsnap::Writer& w, const SeriesOptions& options);

/// Write one GC block (begin_gc .. end_gc) with the walk, in batches of `batch` objects
/// (the shim hands the writer batches too). declare_types: add the type names in this GC.
gcsnap::Status write_gc(gcsnap::Writer& w, const Recording& r, const Walk& walk, uint64_t gc_number,
                        bool declare_types, size_t batch = 1u << 16);

}  // namespace synth
