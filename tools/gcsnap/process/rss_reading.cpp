// The parts of record --on-rss that read: the SIZE argument (the resident size is the
// platform's: platform/process_memory.hpp).
#include <cmath>
#include <string>
#include <utility>

#include "errors/cli_error.hpp"
#include "process/rss_trigger.hpp"

namespace gcsnap::cli {

uint64_t parse_size(const std::string& text, const std::string& name) {
  size_t end = 0;
  while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == '.')) ++end;
  std::string unit = text.substr(end);
  int shift = -1;
  if (unit.empty() || unit == "B") shift = 0;
  for (const auto& [letter, s] : {std::pair{'K', 10}, std::pair{'M', 20}, std::pair{'G', 30}, std::pair{'T', 40}}) {
    const std::string l(1, letter);
    if (unit == l || unit == l + "B" || unit == l + "iB" || unit == std::string(1, static_cast<char>(letter + 32)))
      shift = s;
  }
  double value = 0;
  bool number = end > 0 && end <= 15;
  if (number) {
    try {
      size_t used = 0;
      value = std::stod(text.substr(0, end), &used);
      number = used == end;  // "1.2.3" is not a number
    } catch (...) {
      number = false;
    }
  }
  if (!number || shift < 0) throw CliError(name + " '" + text + "' is not a size like 512M, 2G or 1.5GiB", kExitUsage);
  const double bytes = std::floor(value * std::ldexp(1.0, shift));
  if (bytes < 1 || bytes > 1e18) throw CliError(name + " must be more than 0 and less than an exabyte", kExitUsage);
  return static_cast<uint64_t>(bytes);
}

uint64_t RssTrigger::next_threshold(uint64_t rss_bytes, uint64_t step) noexcept {
  return step == 0 ? UINT64_MAX : (rss_bytes / step + 1) * step;
}

}  // namespace gcsnap::cli
