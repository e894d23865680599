// The Windows build has no zlib or protozero yet (scripts/build-windows.sh builds only zstd and
// Catch2 from Debian's sources): `export --to pprof` says so instead of writing a profile.
#include "export/pprof_export.hpp"

#include "output/cli_error.hpp"

namespace gcsnap::cli {

PprofCounts write_pprof(LoadedHeap&, OutputFile&) {
  throw CliError("export --to pprof is not built in the Windows build yet; export on Linux or macOS", kExitUsage);
}

}  // namespace gcsnap::cli
