// gcsnap inspect FILE[:GC]: the findings of one heap walk (gcsnap/inspect.hpp): duplicate
// strings by the field that holds them, empty and sparse collections and arrays, event-handler
// and timer leaks (with the delegate's method), finalizable objects, caches at their limit; each
// with its bytes, totalled without counting an object twice.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.hpp"
#include "errors/cli_error.hpp"
#include "gcsnap/heap_inspect.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {
namespace {

struct InspectOptions {
  std::string file;
  std::optional<uint64_t> gc;
  size_t top = 0;
  Format format = Format::Table;
};

Table totals_table(const InspectReport& report, uint64_t gc) {
  Table t("totals", fmt::format("Findings in GC {}: {} in all, each object counted once", gc,
                                report.findings.size()));
  t.add_column("kind", "KIND").add_column("findings", "FINDINGS", ColumnKind::Count);
  t.add_column("bytes", "BYTES", ColumnKind::Bytes);
  for (const InspectTotal& total : report.totals) t.add_row({total.kind, total.findings, total.bytes});
  t.add_row({"all", static_cast<unsigned long long>(report.findings.size()), report.bytes});
  return t;
}

Table findings_table(const InspectReport& report, size_t top) {
  const size_t shown = top ? std::min(top, report.findings.size()) : report.findings.size();
  Table t("findings", shown == report.findings.size()
                          ? std::string("Findings (bytes wasted, or held for finalizable objects and caches)")
                          : fmt::format("Findings (first {} of {})", shown, report.findings.size()));
  t.add_column("kind", "KIND").add_column("bytes", "BYTES", ColumnKind::Bytes);
  t.add_column("objects", "OBJECTS", ColumnKind::Count).add_column("holder", "HOLDER", ColumnKind::TypeName);
  t.add_column("what", "WHAT", ColumnKind::TypeName).add_column("method", "METHOD", ColumnKind::TypeName);
  t.add_column("example", "EXAMPLE", ColumnKind::Text, Shown::Everywhere);
  auto text = [](const std::string& s) { return s.empty() ? Cell() : Cell(s); };
  for (size_t k = 0; k < shown; ++k) {
    const Finding& f = report.findings[k];
    t.add_row({f.kind, f.bytes, f.count, f.holder, f.what, text(f.method), text(f.example)});
  }
  return t;
}

void run_inspect(const InspectOptions& opt) {
  auto heap = load_heap(opt.file, opt.gc, kNeedGraph | kNeedPredecessors | kNeedFieldNames);
  const Recording& rec = *heap->sel.recording;
  const auto capture = value_or_fail(rec.read_value_capture(heap->sel.index), heap->sel.file);
  const InspectReport report =
      value_or_fail(inspect_gc(rec, heap->sel.index, *heap, heap->dominators(false)), heap->sel.file);
  Report out;
  out.tables.push_back(totals_table(report, heap->sel.number()));
  out.tables.push_back(findings_table(report, opt.top));
  if (!capture)
    out.notes.push_back(fmt::format("GC {} has no values (a recording before format 1.5, or GCSNAP_FIELDS=0): "
                                    "no duplicate strings, collections or caches; finalizable objects only",
                                    heap->sel.number()));
  else if (!(capture->flags & value_flags::kContentsCaptured))
    out.notes.push_back("strings were recorded as length and keyed hash only (record --capture-strings for examples)");
  for (const std::string& note : heap->notes()) out.notes.push_back(note);
  print_report(out, opt.format);
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto opt = std::make_shared<InspectOptions>();
  auto* cmd = app.add_subcommand("inspect", "List what a heap walk wastes: duplicate strings, empty and sparse "
                                            "collections and arrays, event-handler and timer leaks, "
                                            "finalizable objects, caches at their limit");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (default GC: the last with a heap walk)")->required();
  add_gc_option(*cmd, opt->gc);
  cmd->add_option("--top", opt->top, "list at most N findings (the totals still count all)");
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_inspect(*opt); });
}

}  // namespace gcsnap::cli
