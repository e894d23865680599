// prepare_output (record_launch.hpp): the rules of an output path, the same on every system.
// The file system's answers (what is absolute, whether a folder takes a file, removing one)
// are the platform's (platform/files.hpp).
#include <optional>
#include <string>

#include "errors/cli_error.hpp"
#include "platform/files.hpp"
#include "process/record_launch.hpp"

namespace gcsnap::cli {

std::string prepare_output(const std::string& output, bool replace) {
  if (output.empty() || is_path_separator(output.back())) {
    throw CliError("output path '" + output + "' names no file", kExitUsage);
  }
  const std::optional<std::string> absolute = absolute_path(output);
  if (!absolute) throw CliError("cannot tell the current directory", kExitNotRecorded);
  const std::string& path = *absolute;
  const std::string dir = parent_directory(path);
  if (has_output_pattern(dir)) {
    throw CliError("output path '" + output + "': {pid} and {name} may appear in the file name only", kExitUsage);
  }
  if (!is_directory(dir)) {
    throw CliError("output path not writable: directory " + dir + " does not exist", kExitNotRecorded);
  }
  if (const std::string why = why_not_writable(dir); !why.empty()) {
    throw CliError("output path not writable: " + dir + ": " + why, kExitNotRecorded);
  }
  if (has_output_pattern(path)) return path;
  const NameKind kind = name_kind(path);
  if (kind == NameKind::Directory) {
    throw CliError("output path not writable: " + path + " is a directory", kExitNotRecorded);
  }
  if (kind == NameKind::Other) {
    if (!replace) throw CliError(path + " exists; add --force to replace it", kExitNotRecorded);
    // The shim creates the file exclusively (so child processes cannot clobber it): replace here.
    if (const std::string why = remove_file(path); !why.empty()) {
      throw CliError("output path not writable: cannot replace " + path + ": " + why, kExitNotRecorded);
    }
  }
  return path;
}

}  // namespace gcsnap::cli
