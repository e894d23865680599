// Values as text and back: byte counts, addresses, JSON and CSV escapes, --format names.
#include <iterator>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  // Rounding can reach 1024.0 ("1024.0 KiB"); show the next unit instead.
  if (value >= 1023.95 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string format_delta_bytes(int64_t bytes) {
  if (bytes == 0) return "0 B";
  const uint64_t magnitude = bytes < 0 ? 0 - static_cast<uint64_t>(bytes) : static_cast<uint64_t>(bytes);
  std::string text(bytes < 0 ? "-" : "+");  // appended: see field_naming.cpp on -Wrestrict
  return text.append(format_bytes(magnitude));
}

std::string format_address(uint64_t address) { return fmt::format("0x{:x}", address); }

uint64_t parse_address(std::string_view text) {
  std::string_view digits = text;
  if (digits.starts_with("0x") || digits.starts_with("0X")) digits.remove_prefix(2);
  const bool ok = !digits.empty() && digits.size() <= 16 &&
                  digits.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
  if (!ok)
    throw CliError(fmt::format("'{}' is not an address (write it in hex, with or without 0x, e.g. 0x7f3a10002000)", text),
                   kExitUsage);
  uint64_t value = 0;
  for (char c : digits) {
    const int v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    value = value * 16 + static_cast<uint64_t>(v);
  }
  return value;
}

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else out += c;
    }
  }
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

Format parse_format(std::string_view name) {
  if (name == "table") return Format::Table;
  if (name == "json") return Format::Json;
  if (name == "csv") return Format::Csv;
  throw CliError(fmt::format("unknown format '{}' (use table, json or csv)", name), kExitUsage);
}

}  // namespace gcsnap::cli
