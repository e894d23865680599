#include "record_report.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

namespace gcsnap::shim {

void write_process_report(const std::string& dir, const ProcessReport& report) noexcept {
  try {
    if (dir.empty()) return;
    std::string path = dir + "/" + std::to_string(report.pid) + std::string(kReportSuffix);
    std::string temporary = path + ".tmp";
    std::string text = format_process_report(report);
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    if (done == text.size()) ::rename(temporary.c_str(), path.c_str());
    else ::unlink(temporary.c_str());
  } catch (...) {
    // Out of memory for a few strings: the report is lost, the app is not harmed.
  }
}

}  // namespace gcsnap::shim
