#include <sys/stat.h>

#include "platform/control_channel.hpp"

namespace gcsnap::cli {

bool control_channel_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace gcsnap::cli
