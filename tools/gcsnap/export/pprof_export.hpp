#pragma once
// `gcsnap export FILE[:GC] --to pprof`: one GC's heap as a retention profile in pprof's
// profile.proto, gzipped (docs/cli.md "export", docs/fleet.md "pprof"). Not an allocation
// profile: a "stack" is a path down the dominator tree (root kind, then the type of each
// dominator, named by the field or static that holds it), folded where a frame repeats.

#include <cstdint>
#include <string>

#include "loading/heap_load.hpp"
#include "output/output_file.hpp"

namespace gcsnap::cli {

/// What was written, for the summary line.
struct PprofCounts {
  uint64_t samples = 0;    ///< distinct stacks with objects
  uint64_t functions = 0;  ///< distinct frames
  uint64_t objects = 0;    ///< objects in the profile: every object of the GC
  uint64_t bytes = 0;      ///< their shallow bytes
};

/// Write HEAP (loaded with the reverse graph and fields) to OUT as a gzipped profile.proto.
/// Sample types: objects (count), bytes (bytes: the objects' own sizes, so a frame's
/// cumulative value is the retained size under it) and retained_bytes (bytes: the retained
/// size of the objects that start the stack; read it flat). Every sample has the label gc.
/// Unreachable objects sit under the frame "(unreachable)". Throws CliError.
PprofCounts write_pprof(LoadedHeap& heap, OutputFile& out);

/// DATA (an encoded profile.proto) gzipped as pprof reads it, the same bytes on every system.
/// Throws CliError naming FILE.
std::string gzip_profile(const std::string& data, const std::string& file);

}  // namespace gcsnap::cli
