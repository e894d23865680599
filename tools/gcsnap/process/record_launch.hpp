#pragma once
// gcsnap record's process side that is the same on every system: the profiler variables and
// the output name patterns (process/profiler_environment.cpp). Starting and waiting are the
// platform's (platform/launch.hpp).

#include <string>
#include <utility>
#include <vector>

#include "platform/launch.hpp"

namespace gcsnap::cli {

/// Return true when OUTPUT holds "{pid}" or "{name}".
bool has_output_pattern(const std::string& output);
/// Return the variables that make a .NET runtime load the shim at SHIM_PATH as the profiler
/// CLSID: the CORECLR_ names every runtime reads and the DOTNET_ names .NET 11 also reads
/// (and prefers), each with the _64 path that wins over the plain one. Setting all of them
/// means a profiler the user configured under either prefix never takes gcsnap's place.
std::vector<std::pair<std::string, std::string>> profiler_environment(const std::string& clsid,
                                                                      const std::string& shim_path);
/// Return the variables that make a .NET Framework 4.x runtime load the shim at start
/// (COR_ENABLE_PROFILING, COR_PROFILER, COR_PROFILER_PATH): `record` sets them on Windows.
std::vector<std::pair<std::string, std::string>> framework_profiler_environment(const std::string& clsid,
                                                                                const std::string& shim_path);

}  // namespace gcsnap::cli
