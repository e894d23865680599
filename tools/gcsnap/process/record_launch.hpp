#pragma once
// gcsnap record's process side that is the same on every system: the profiler variables
// (process/profiler_environment.cpp) and the output path's rules (process/output_path.cpp).
// Starting and waiting, and the file system's answers, are the platform's (platform/launch.hpp,
// platform/files.hpp).

#include <string>
#include <utility>
#include <vector>

#include "platform/launch.hpp"

namespace gcsnap::cli {

/// Return true when OUTPUT holds "{pid}" or "{name}".
bool has_output_pattern(const std::string& output);
/// Make OUTPUT absolute and check its directory is writable. A "{pid}" or "{name}" pattern
/// may appear in the file name only (the shim expands it). An existing file of a name
/// without a pattern is removed when REPLACE is set and refused otherwise ("add --force").
/// Throws CliError when it cannot be written.
std::string prepare_output(const std::string& output, bool replace);
/// Return the variables that make a .NET runtime load the shim at SHIM_PATH as the profiler
/// CLSID: the CORECLR_ names every runtime reads and the DOTNET_ names .NET 11 also reads
/// (and prefers), each with the _64 path that wins over the plain one. Setting all of them
/// means a profiler the user configured under either prefix never takes gcsnap's place. Then,
/// where the system runs the .NET Framework (Windows), framework_profiler_environment's.
std::vector<std::pair<std::string, std::string>> profiler_environment(const std::string& clsid,
                                                                      const std::string& shim_path);
/// Return the variables that make a .NET Framework 4.x runtime load the shim at start
/// (COR_ENABLE_PROFILING, COR_PROFILER, COR_PROFILER_PATH).
std::vector<std::pair<std::string, std::string>> framework_profiler_environment(const std::string& clsid,
                                                                                const std::string& shim_path);

}  // namespace gcsnap::cli
