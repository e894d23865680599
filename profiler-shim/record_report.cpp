#include "record_report.hpp"

#include "shim_os.hpp"

namespace gcsnap::shim {

void write_process_report(const std::string& dir, const ProcessReport& report) noexcept {
  try {
    if (dir.empty()) return;
    std::string path = dir + "/" + std::to_string(report.pid) + std::string(kReportSuffix);
    (void)os::write_whole_file(path, format_process_report(report));
  } catch (...) {
    // Out of memory for a few strings: the report is lost, the app is not harmed.
  }
}

}  // namespace gcsnap::shim
