// The profiler variables of record_launch.hpp and the output name patterns.
#include <string>
#include <utility>
#include <vector>

#include "process/record_launch.hpp"

namespace gcsnap::cli {

bool has_output_pattern(const std::string& output) {
  return output.find("{pid}") != std::string::npos || output.find("{name}") != std::string::npos;
}

std::vector<std::pair<std::string, std::string>> profiler_environment(const std::string& clsid,
                                                                      const std::string& shim_path) {
  std::vector<std::pair<std::string, std::string>> variables;
  for (const char* prefix : {"CORECLR_", "DOTNET_"}) {
    std::string p(prefix);
    variables.emplace_back(p + "ENABLE_PROFILING", "1");
    variables.emplace_back(p + "PROFILER", clsid);
    variables.emplace_back(p + "PROFILER_PATH", shim_path);
    variables.emplace_back(p + "PROFILER_PATH_64", shim_path);
  }
  if (has_dotnet_framework()) {
    for (auto& variable : framework_profiler_environment(clsid, shim_path)) variables.push_back(std::move(variable));
  }
  return variables;
}

// .NET Framework 4.0 and later skip the registry lookup of the CLSID when COR_PROFILER_PATH is set.
std::vector<std::pair<std::string, std::string>> framework_profiler_environment(const std::string& clsid,
                                                                                const std::string& shim_path) {
  return {{"COR_ENABLE_PROFILING", "1"}, {"COR_PROFILER", clsid}, {"COR_PROFILER_PATH", shim_path}};
}

}  // namespace gcsnap::cli
