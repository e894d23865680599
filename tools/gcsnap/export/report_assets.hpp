#pragma once
// The report page's assets (tools/gcsnap/report/), embedded at build time by
// report/embed_assets.cmake.

#include <string_view>

namespace gcsnap::cli {
extern const std::string_view kReportHtml;    ///< report.html, with <!--GCSNAP_*--> placeholders
extern const std::string_view kReportScript;  ///< report.js
extern const std::string_view kReportStyle;   ///< report.css
}  // namespace gcsnap::cli
