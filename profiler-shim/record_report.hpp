#pragma once
// The shim's side of the process reports `gcsnap record` reads (GCSNAP_RECORD_DIR,
// shim_protocol.hpp ProcessReport): one file per process, written whole and renamed into
// place, so the CLI never reads half a report.

#include <string>

#include "gcsnap_shim/shim_protocol.hpp"

namespace gcsnap::shim {

/// Write REPORT as DIR/<pid>.proc. Never throws; a report that cannot be written only costs
/// the CLI its knowledge of this process (it then names no file for it).
void write_process_report(const std::string& dir, const ProcessReport& report) noexcept;

}  // namespace gcsnap::shim
