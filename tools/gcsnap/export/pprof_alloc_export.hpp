#pragma once
// `gcsnap export FILE[:GC] --to pprof --profile alloc`: the sampled allocations of a recording
// (format-spec.md §6.18-§6.21) as an allocation profile in pprof's profile.proto, with their
// real stacks (docs/cli.md "export").

#include <cstddef>
#include <cstdint>
#include <string>

#include "gcsnap/reader.hpp"
#include "output/output_file.hpp"

namespace gcsnap::cli {

struct AllocPprofCounts {
  uint64_t samples = 0;    ///< allocation samples of blocks 0..GC
  uint64_t stacks = 0;     ///< distinct stacks (profile samples)
  uint64_t functions = 0;  ///< distinct functions
  uint64_t live = 0;       ///< samples whose object is alive at the GC
};

/// Write the samples of FILE's blocks 0..GC_POS, each followed to GC_POS, as a gzipped
/// profile.proto: sample types alloc_objects/count, alloc_space/bytes (estimated allocated),
/// inuse_objects/count and inuse_space/bytes (estimated still alive at the GC); one profile
/// sample per stack, locations and functions from the stack's frames (module as file name;
/// native frames as addresses). Throws CliError naming FILE (no sample at all: nothing to
/// profile; damaged sections).
AllocPprofCounts write_alloc_pprof(const std::string& file, const Recording& recording, size_t gc_pos, OutputFile& out);

}  // namespace gcsnap::cli
