#include "shim_log.hpp"

#include <algorithm>
#include <cstring>

#include "shim_os.hpp"

namespace gcsnap::shim {

void log_line(std::string_view message) noexcept {
  char line[1024];
  constexpr std::string_view kPrefix = "gcsnap: ";
  size_t room = sizeof(line) - kPrefix.size() - 1;
  size_t n = std::min(message.size(), room);
  std::memcpy(line, kPrefix.data(), kPrefix.size());
  std::memcpy(line + kPrefix.size(), message.data(), n);
  line[kPrefix.size() + n] = '\n';
  os::write_stderr(std::string_view(line, kPrefix.size() + n + 1));
}

bool log_once(std::atomic<bool>& flag, std::string_view message) noexcept {
  if (flag.exchange(true)) return false;
  log_line(message);
  return true;
}

}  // namespace gcsnap::shim
