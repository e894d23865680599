// gcsnap report: one self-contained HTML page over one or more recordings: timeline of every
// GC, types with their series across snapshots, dominators as a treemap with paths, a diff of
// any two snapshots. The page carries aggregates only (report_data.cpp); script and style are
// inline (report_assets.hpp), nothing is fetched when it is viewed.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "gcsnap/version.hpp"
#include "output/output.hpp"
#include "output/output_file.hpp"
#include "export/report_assets.hpp"
#include "export/report_data.hpp"

namespace gcsnap::cli {

namespace {

struct ReportOptions {
  std::vector<std::string> files;
  std::string output = "report.html";
  ReportLimits limits;
};

// Put TEXT where PLACEHOLDER is in PAGE (once).
void fill(std::string& page, std::string_view placeholder, std::string_view text) {
  const size_t at = page.find(placeholder);
  if (at == std::string::npos) throw std::logic_error("report template has no placeholder");
  page.replace(at, placeholder.size(), text);
}

// JSON inside <script>: "</" must not appear, or the HTML parser would end the script there.
std::string script_safe(std::string json) {
  for (size_t at = json.find("</"); at != std::string::npos; at = json.find("</", at + 3)) json.insert(at + 1, "\\");
  return json;
}

void run_report(const ReportOptions& opt) {
  std::string data = fmt::format("{{\"version\":\"{}\",\"recordings\":[", kVersion);
  for (size_t i = 0; i < opt.files.size(); ++i) {
    if (i) data += ',';
    data += build_report_data(opt.files[i], opt.limits);
  }
  data += "]}";
  std::string page(kReportHtml);
  fill(page, "<!--GCSNAP_STYLE-->", fmt::format("<style>\n{}</style>", kReportStyle));
  fill(page, "<!--GCSNAP_SCRIPT-->", fmt::format("<script>\n{}</script>", kReportScript));
  fill(page, "<!--GCSNAP_DATA-->", script_safe(std::move(data)));
  OutputFile out(opt.output);
  out.write(page);
  out.commit();
  std::fprintf(stderr, "%s", fmt::format("gcsnap: report of {} recording{} -> {} ({})\n", opt.files.size(),
                                         opt.files.size() == 1 ? "" : "s", out.is_stdout() ? "standard output" : opt.output,
                                         format_bytes(page.size())).c_str());
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto opt = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "Write one self-contained HTML report (timeline, types, dominators, diff) "
                                           "of one or more recordings");
  cmd->add_option("files", opt->files, "recordings (each gets its own view; a picker switches between them)")->required();
  cmd->add_option("-o,--output", opt->output, "the HTML file to write (default report.html; '-': standard output)");
  cmd->add_option("--types", opt->limits.types, "types carried with their series (default 300; the rest are summed)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--dominators", opt->limits.dominator_nodes,
                  "dominator tree nodes carried, largest retained first (default 1500)")->check(CLI::PositiveNumber);
  cmd->add_flag_callback("--no-fold", [opt] { opt->limits.fold = false; },
                "list every hop of the suspects' paths (by default a chain of hops of the same type and field is one "
                "hop with a count)");
  cmd->callback([opt] { run_report(*opt); });
}

}  // namespace gcsnap::cli
