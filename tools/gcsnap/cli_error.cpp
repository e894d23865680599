#include "cli_error.hpp"

#include <cstring>

#include <fmt/format.h>

namespace gcsnap::cli {

std::string describe_error(const std::string& file, const Error& error) {
  std::string text = fmt::format("{}: {}", file, error_code_name(error.code));
  if (error.detail && *error.detail) text += fmt::format(": {}", error.detail);
  if (error.sys_errno != 0) text += fmt::format(": {}", std::strerror(error.sys_errno));
  if (error.offset != 0) text += fmt::format(" (offset 0x{:x})", error.offset);
  return text;
}

void fail_on(const std::string& file, const Error& error) {
  throw CliError(describe_error(file, error), kExitBadInput);
}

}  // namespace gcsnap::cli
