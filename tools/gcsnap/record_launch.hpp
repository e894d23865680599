#pragma once
// gcsnap record's process side: find the shim, check the output path, run the command with
// the profiler environment, forward signals, and return its exit status.

#include <functional>
#include <string>
#include <vector>

namespace gcsnap::cli {

struct LaunchRequest {
  std::vector<std::string> command;            ///< argv of the app
  std::vector<std::pair<std::string, std::string>> environment;  ///< set in the child
  std::string output_env_name;                 ///< variable that receives the output path
  std::string output_path;                     ///< absolute; "{pid}" is replaced by the child's pid
  std::function<void(long pid)> on_started;    ///< called once the command was executed
};

struct LaunchResult {
  int exit_code = 0;     ///< the command's exit code, or 128+signal
  long pid = 0;
  std::string output_path;  ///< with "{pid}" replaced
};

/// Return the shim next to this executable (build tree), in <prefix>/<libdir>/gcsnap
/// (installed), or $GCSNAP_SHIM. Throws CliError when none exists.
std::string find_shim();
/// Make OUTPUT absolute, check its directory is writable and remove an old file there.
/// Throws CliError when it cannot be written.
std::string prepare_output(const std::string& output);
/// Fork and exec, forwarding SIGINT/SIGTERM/SIGHUP/SIGQUIT. Throws CliError (exit 127)
/// when the command cannot be executed.
LaunchResult run_command(const LaunchRequest& request);

}  // namespace gcsnap::cli
