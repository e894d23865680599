#include "temp_path.hpp"

#include <atomic>
#include <cstdio>

#include "platform/file_io.hpp"

namespace gcsnap::test {

std::string temp_path(std::string_view stem, std::string_view suffix) {
  static std::atomic<unsigned> counter{0};
  std::string path(stem);
  path += '-' + std::to_string(platform::current_process_id()) + '-' + std::to_string(counter++);
  path += suffix;
  return path;
}

TempFile::~TempFile() { std::remove(path_.c_str()); }

}  // namespace gcsnap::test
