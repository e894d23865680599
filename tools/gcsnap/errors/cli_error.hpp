#pragma once
// CLI-side errors: exceptions are fine here; main() has the one last catch.

#include <stdexcept>
#include <string>
#include <utility>

#include "gcsnap/status.hpp"

namespace gcsnap::cli {

/// Exit codes (docs/cli.md "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;   ///< verify found problems, or the answer is "no"
inline constexpr int kExitUsage = 2;      ///< bad flags or arguments
inline constexpr int kExitBadInput = 3;   ///< a file cannot be read or is not sound
inline constexpr int kExitNotRecorded = 4;///< record: nothing could be recorded

/// One line for the user, printed by main() as "gcsnap: error: <message>".
class CliError : public std::runtime_error {
 public:
  CliError(std::string message, int exit_code) : std::runtime_error(std::move(message)), exit_code_(exit_code) {}
  int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

/// Format "FILE: what is wrong (offset 0x...)" from a library error (gcsnap::error_text).
std::string describe_error(const std::string& file, const Error& error);
/// Throw CliError(kExitBadInput) describing a library error on FILE.
[[noreturn]] void fail_on(const std::string& file, const Error& error);

/// Return the value of RESULT, or throw as fail_on(FILE, its error) does.
template <typename T>
T value_or_fail(Result<T>&& result, const std::string& file) {
  if (!result) fail_on(file, result.error());
  return std::move(result).value();
}

}  // namespace gcsnap::cli
