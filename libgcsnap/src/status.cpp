#include "gcsnap/status.hpp"

#include <charconv>
#include <cstring>

#include "gcsnap/enum_names.hpp"

namespace gcsnap {

std::string error_text(const Error& error) {
  std::string text(error_code_name(error.code));
  if (error.detail && *error.detail) text.append(": ").append(error.detail);
  if (error.sys_errno != 0) text.append(": ").append(std::strerror(error.sys_errno));
  if (error.offset != 0) {
    char hex[16];
    const auto end = std::to_chars(hex, hex + sizeof hex, error.offset, 16).ptr;
    text.append(" (offset 0x").append(hex, end).append(")");
  }
  return text;
}

}  // namespace gcsnap
