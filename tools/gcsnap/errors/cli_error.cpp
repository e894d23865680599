#include "errors/cli_error.hpp"


namespace gcsnap::cli {

std::string describe_error(const std::string& file, const Error& error) {
  return file + ": " + error_text(error);
}

void fail_on(const std::string& file, const Error& error) {
  throw CliError(describe_error(file, error), kExitBadInput);
}

}  // namespace gcsnap::cli
