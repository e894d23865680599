// gcsnap roots: the roots of one GC (address, type, kind, flags, root id, method) and a
// summary by kind and flags. Works on GCs without a heap walk (no type names then).
#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "loading/gc_select.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/heap_points.hpp"
#include "gcsnap/root_summary.hpp"
#include "loading/heap_load.hpp"
#include "commands/type_filter.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

struct RootsOptions {
  std::string file;
  std::optional<uint64_t> gc;
  std::vector<std::string> kinds;
  std::vector<std::string> flags;
  std::string type;
  size_t top = 0;
  bool all = false;
  bool no_cache = false;
  Format format = Format::Table;
};

uint8_t parse_kinds(const std::vector<std::string>& names) {
  uint8_t mask = 0;
  for (const auto& name : names) {
    RootKind kind;
    if (name == "stack") kind = RootKind::Stack;
    else if (name == "finalizer") kind = RootKind::Finalizer;
    else if (name == "handle") kind = RootKind::Handle;
    else if (name == "other") kind = RootKind::Other;
    else throw CliError(fmt::format("unknown root kind '{}' (use stack, finalizer, handle, other)", name), kExitUsage);
    mask = static_cast<uint8_t>(mask | (1u << static_cast<unsigned>(kind)));
  }
  return mask;
}

uint8_t parse_flags(const std::vector<std::string>& names) {
  uint8_t mask = 0;
  for (const auto& name : names) {
    if (name == "pinning") mask |= root_flags::kPinning;
    else if (name == "weak") mask |= root_flags::kWeakRef;
    else if (name == "interior") mask |= root_flags::kInterior;
    else if (name == "refcounted") mask |= root_flags::kRefCounted;
    else throw CliError(fmt::format("unknown root flag '{}' (use pinning, weak, interior, refcounted)", name), kExitUsage);
  }
  return mask;
}

// What one GC offers: its roots, names, and its heap walk when it has one.
struct RootsInput {
  SelectedGc sel;
  RootTable roots;
  NameTable names;
  // The heap walk's objects: from the GC's valid analysis index a piece at a time, else from
  // the recording. Mutable: the index caches the pieces it decodes.
  std::unique_ptr<HeapPoints> walk;

  bool has_walk() const { return sel.entry().has_heap_walk(); }
  /// The type id of each listed root's object (nullopt: no walk, or no object there). Ids, not
  /// names: a heap of 100 M objects has a million roots, and names are compared once per type.
  std::vector<std::optional<uint32_t>> type_ids_of(std::span<const size_t> rows) const {
    if (!has_walk()) return std::vector<std::optional<uint32_t>>(rows.size());
    return value_or_fail(walk->root_object_types(roots, rows), sel.file);
  }
  std::optional<std::string_view> name_of(std::optional<uint32_t> type) const {
    if (!type) return std::nullopt;
    return names.type_name(*type);
  }
};

RootsInput load_roots(const RootsOptions& opt) {
  RootsInput in{open_selected_gc(opt.file, opt.gc, GcNeed::Any), {}, {}, nullptr};
  const Recording& rec = *in.sel.recording;
  auto roots = rec.read_roots(in.sel.index);
  if (!roots) fail_on(in.sel.file, roots.error());
  in.roots = std::move(roots).value();
  auto names = rec.read_names(in.sel.index);
  if (!names) fail_on(in.sel.file, names.error());
  in.names = std::move(names).value();
  if (!in.has_walk() && !opt.type.empty())
    throw CliError(fmt::format("{}: --type needs a GC with a heap walk; GC {} has none", in.sel.file, in.sel.number()),
                   kExitUsage);
  in.walk = value_or_fail(
      HeapPoints::open(in.sel.file, rec, in.sel.index, opt.no_cache ? IndexUse::Ignore : IndexUse::Existing),
      in.sel.file);
  return in;
}

// Keep the rows whose object's type name contains PATTERN: each type's name is matched once.
void keep_type_matches(const RootsInput& in, std::string_view pattern, std::vector<size_t>& rows) {
  const auto types = in.type_ids_of(rows);
  std::vector<std::pair<uint32_t, bool>> matched;  // (type id, name matches), sorted by id
  for (const auto& t : types)
    if (t) matched.emplace_back(*t, false);
  std::sort(matched.begin(), matched.end());
  matched.erase(std::unique(matched.begin(), matched.end()), matched.end());
  for (auto& [id, match] : matched) match = contains_ignore_case(in.names.type_name(id), pattern);
  auto matches = [&](uint32_t id) {
    return std::lower_bound(matched.begin(), matched.end(), std::make_pair(id, false))->second;
  };
  size_t kept = 0;
  for (size_t k = 0; k < rows.size(); ++k)
    if (types[k] && matches(*types[k])) rows[kept++] = rows[k];
  rows.resize(kept);
}

std::vector<size_t> select_roots(const RootsInput& in, const RootsOptions& opt) {
  std::vector<size_t> rows =
      value_or_fail(filter_roots(in.roots, parse_kinds(opt.kinds), parse_flags(opt.flags)), in.sel.file);
  if (!opt.type.empty()) keep_type_matches(in, opt.type, rows);
  // Listed like the summary: stack, finalizer, handle, other; then by object address, with
  // null slots (object 0, which the runtime reports for empty stack slots) last; the table's
  // order among equals. Sorted as keys beside the rows, not through the table at each compare.
  struct Keyed {
    uint8_t rank;  // kind, Other last, then null after non-null
    uint64_t object;
    size_t row;
    bool operator<(const Keyed& o) const { return std::tie(rank, object, row) < std::tie(o.rank, o.object, o.row); }
  };
  std::vector<Keyed> keyed(rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    const size_t i = rows[k];
    const int kind = in.roots.kinds[i] == RootKind::Other ? 4 : static_cast<int>(in.roots.kinds[i]);
    keyed[k] = {static_cast<uint8_t>(kind * 2 + (in.roots.object_ids[i] == 0)), in.roots.object_ids[i], i};
  }
  std::sort(keyed.begin(), keyed.end());
  for (size_t k = 0; k < rows.size(); ++k) rows[k] = keyed[k].row;
  return rows;
}

// The options that filtered the roots, as typed ("--kind stack --type Order"); empty when none.
std::string filter_text(const RootsOptions& opt) {
  std::string s;
  auto add = [&](const char* option, const std::vector<std::string>& values) {
    if (values.empty()) return;
    s += fmt::format("{}{} ", s.empty() ? "" : " ", option);
    for (size_t k = 0; k < values.size(); ++k) s += (k ? "," : "") + values[k];
  };
  add("--kind", opt.kinds);
  add("--flags", opt.flags);
  if (!opt.type.empty()) add("--type", {opt.type});
  return s;
}

// The summary counts the roots that match the filters (all of them when there are none): the
// title and, for JSON/CSV, each row's `filter` say which.
Table summary_table(const RootsInput& in, const std::vector<size_t>& rows, const std::string& filter) {
  RootTable selected;
  for (size_t i : rows) {
    selected.object_ids.push_back(in.roots.object_ids[i]);
    selected.kinds.push_back(in.roots.kinds[i]);
    selected.flags.push_back(in.roots.flags[i]);
    selected.root_ids.push_back(in.roots.root_ids[i]);
  }
  Table summary("summary", filter.empty() ? fmt::format("Roots of GC {} by kind and flags", in.sel.number())
                                          : fmt::format("Roots of GC {} that match {}, by kind and flags ({} of {} roots)",
                                                        in.sel.number(), filter, rows.size(), in.roots.size()));
  summary.add_column("kind", "KIND").add_column("flags", "FLAGS").add_column("count", "ROOTS", ColumnKind::Count);
  summary.add_column("distinct_objects", "OBJECTS", ColumnKind::Count).add_column("null_objects", "NULL", ColumnKind::Count);
  summary.add_column("filter", "", ColumnKind::Text, Shown::MachineOnly);
  const Cell filter_cell = filter.empty() ? Cell() : Cell(filter);
  for (const auto& g : value_or_fail(summarize_roots(selected), in.sel.file))
    summary.add_row(
        {root_kind_name(g.kind), root_flags_text(g.flags), g.count, g.distinct_objects, g.null_objects, filter_cell});
  return summary;
}

// Rows of the list on a terminal unless --top or --all says otherwise (a heap of 50 M objects
// has some 300,000 handles), and the types of the summary by type there.
constexpr size_t kTerminalRows = 50;
constexpr size_t kTerminalTypes = 10;

// The summary by the type of the roots' objects (ROWS' TYPES, parallel; nullopt: no object
// there or a null root): roots and distinct objects per type name, most roots first. A table
// shows the first kTerminalTypes and says how many more there are.
Table type_summary(const RootsInput& in, std::span<const size_t> rows, std::span<const std::optional<uint32_t>> types,
                   Format format, std::vector<std::string>& notes) {
  struct Count {
    std::optional<std::string_view> type;
    uint64_t roots = 0, objects = 0;
  };
  // Counted by type id (0: no type, else id + 1) and object; an object has one type, so the
  // counts of ids that share a name add up.
  std::vector<std::pair<uint64_t, uint64_t>> keyed(rows.size());
  for (size_t k = 0; k < rows.size(); ++k)
    keyed[k] = {types[k] ? uint64_t{*types[k]} + 1 : 0, in.roots.object_ids[rows[k]]};
  std::sort(keyed.begin(), keyed.end());
  std::vector<Count> counts;
  for (size_t k = 0; k < keyed.size(); ++k) {
    const bool new_type = k == 0 || keyed[k].first != keyed[k - 1].first;
    if (new_type) counts.push_back(Count{keyed[k].first ? in.name_of(static_cast<uint32_t>(keyed[k].first - 1)) : std::nullopt});
    ++counts.back().roots;
    counts.back().objects += new_type || keyed[k].second != keyed[k - 1].second;
  }
  std::sort(counts.begin(), counts.end(), [](const Count& x, const Count& y) { return x.type < y.type; });
  size_t merged = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    if (merged && counts[merged - 1].type == counts[k].type) {
      counts[merged - 1].roots += counts[k].roots;
      counts[merged - 1].objects += counts[k].objects;
    } else {
      counts[merged++] = counts[k];
    }
  }
  counts.resize(merged);
  std::stable_sort(counts.begin(), counts.end(), [](const Count& x, const Count& y) { return x.roots > y.roots; });
  Table table("types", fmt::format("Roots of GC {} by their object's type", in.sel.number()));
  table.add_column("type", "TYPE", ColumnKind::TypeName).add_column("count", "ROOTS", ColumnKind::Count);
  table.add_column("distinct_objects", "OBJECTS", ColumnKind::Count);
  const size_t shown = format == Format::Table ? std::min(counts.size(), kTerminalTypes) : counts.size();
  for (size_t k = 0; k < shown; ++k)
    table.add_row({counts[k].type ? Cell(*counts[k].type) : Cell(), counts[k].roots, counts[k].objects});
  if (shown < counts.size())
    notes.push_back(fmt::format("the summary by type shows the {} types with most roots of {} (--format json or csv: all)",
                                shown, counts.size()));
  return table;
}

Table list_table(const RootsInput& in, std::span<const size_t> rows, size_t matched,
                 std::span<const std::optional<uint32_t>> types) {
  Table list("roots", rows.size() == matched
                          ? fmt::format("Roots ({} of {})", matched, in.roots.size())
                          : fmt::format("Roots (first {} of {} that match, {} in all)", rows.size(), matched,
                                        in.roots.size()));
  list.add_column("address", "OBJECT", ColumnKind::Address).add_column("type", "TYPE", ColumnKind::TypeName).add_column("kind", "KIND");
  list.add_column("flags", "FLAGS").add_column("root_id", "ROOT ID", ColumnKind::Address).add_column("method", "METHOD");
  for (size_t k = 0; k < rows.size(); ++k) {
    const size_t i = rows[k];
    const auto t = in.name_of(types[k]);
    Cell method;
    if (in.roots.kinds[i] == RootKind::Stack)
      if (const MethodRecord* m = in.names.find_method(in.roots.root_ids[i])) method = Cell(m->name);
    list.add_row({in.roots.object_ids[i], t ? Cell(*t) : Cell(), root_kind_name(in.roots.kinds[i]),
                  root_flags_text(in.roots.flags[i]), in.roots.root_ids[i], method});
  }
  return list;
}

// How many roots to list: --top, every one with --all or for JSON and CSV, else the first
// kTerminalRows (and a note says how to see the rest).
size_t listed_rows(const RootsOptions& opt, size_t matched, std::vector<std::string>& notes) {
  if (opt.top) return std::min(opt.top, matched);
  if (opt.all || opt.format != Format::Table || matched <= kTerminalRows) return matched;
  notes.push_back(fmt::format("listing the first {} of {} roots: --top N or --all for more, --format json or csv "
                              "for every one", kTerminalRows, matched));
  return kTerminalRows;
}

void run_roots(const RootsOptions& opt) {
  const RootsInput in = load_roots(opt);
  const std::vector<size_t> rows = select_roots(in, opt);
  Report report;
  std::vector<std::string> list_note;
  report.tables.push_back(summary_table(in, rows, filter_text(opt)));  // counts every match, before --top
  // The types of every match when the summary by type needs them, else of the listed rows.
  const size_t shown = listed_rows(opt, rows.size(), list_note);
  const auto types = in.type_ids_of(in.has_walk() ? std::span<const size_t>(rows) : std::span(rows).first(shown));
  if (in.has_walk()) report.tables.push_back(type_summary(in, rows, types, opt.format, report.notes));
  report.tables.push_back(list_table(in, std::span<const size_t>(rows).first(shown), rows.size(),
                                     std::span(types).first(shown)));
  for (auto& note : list_note) report.notes.push_back(std::move(note));
  if (!in.has_walk()) report.notes.push_back(fmt::format("GC {} has no heap walk: no type names", in.sel.number()));
  if (in.sel.entry().drops.roots)
    report.notes.push_back(fmt::format("the recorder dropped {} roots at this GC", in.sel.entry().drops.roots));
  print_report(report, opt.format);
}

}  // namespace

void add_roots_command(CLI::App& app) {
  auto opt = std::make_shared<RootsOptions>();
  auto* cmd = app.add_subcommand("roots", "List the roots of a GC and summarize them by kind and flags");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (default GC: the last)")->required();
  add_gc_option(*cmd, opt->gc);
  cmd->add_option("--kind", opt->kinds, "only roots of these kinds: stack, finalizer, handle, other")->delimiter(',');
  cmd->add_option("--flags", opt->flags, "only roots with all these flags: pinning, weak, interior, refcounted")
      ->delimiter(',');
  cmd->add_option("--type", opt->type, "only roots whose object's type name contains this text, ignoring case (needs a heap walk)");
  auto* top = cmd->add_option("--top", opt->top,
                              "list at most N roots (the summaries still count all that match; default in a table: 50)");
  cmd->add_flag("--all", opt->all, "list every root that matches (JSON and CSV always do)")->excludes(top);
  add_no_cache_option(*cmd, opt->no_cache);
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_roots(*opt); });
}

}  // namespace gcsnap::cli
