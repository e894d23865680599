// platform/process_memory.hpp on Linux: /proc/PID/statm, one small read per poll.
#include <unistd.h>

#include <fstream>
#include <string>

#include "platform/process_memory.hpp"

namespace gcsnap::cli {

uint64_t resident_bytes(long pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace gcsnap::cli
