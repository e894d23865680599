// gcsnap check: pass/fail limits on a recording for CI (docs/cli.md "check"): growth of the
// bytes of some types, counts of some types, and no leak suspect. Exit 1 lists what failed.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "loading/leak_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

struct CheckOptions {
  std::vector<std::string> files;
  std::vector<std::string> max_growth, max_count;
  bool no_suspects = false;
  Format format = Format::Table;
};

struct Limit {
  std::string option, pattern, text;
  uint64_t value = 0;
};

// Glob match: '*' any run of characters, '?' one character, anything else itself.
bool glob_match(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<uint64_t> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// "123", "10KB" (1000), "10KiB"/"10K" (1024), MB/MiB/M, GB/GiB/G; case-insensitive units.
std::optional<uint64_t> parse_limit_size(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const auto number = parse_number(text.substr(0, digits));
  if (!number) return std::nullopt;
  std::string unit;
  for (char c : text.substr(digits)) unit += static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  uint64_t scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "KB") scale = 1000;
  else if (unit == "K" || unit == "KIB") scale = 1ull << 10;
  else if (unit == "MB") scale = 1000 * 1000;
  else if (unit == "M" || unit == "MIB") scale = 1ull << 20;
  else if (unit == "GB") scale = 1000ull * 1000 * 1000;
  else if (unit == "G" || unit == "GIB") scale = 1ull << 30;
  else return std::nullopt;
  if (*number > UINT64_MAX / scale) return std::nullopt;
  return *number * scale;
}

Limit parse_limit(const std::string& option, const std::string& text, bool size) {
  const size_t eq = text.rfind('=');
  const char* example = size ? "'MyApp.*=10MiB'" : "'MyApp.Session=1000'";
  const char* what = size ? "PATTERN=SIZE" : "TYPE=N";
  if (eq == std::string::npos || eq == 0)
    throw CliError(fmt::format("{} '{}': expected {} (e.g. {})", option, text, what, example), kExitUsage);
  Limit limit{option, text.substr(0, eq), text.substr(eq + 1), 0};
  const auto value = size ? parse_limit_size(limit.text) : parse_number(limit.text);
  if (!value)
    throw CliError(fmt::format("{} '{}': '{}' is not a {} (e.g. {})", option, text, limit.text,
                               size ? "size (123, 64KiB, 10MB, 1GiB)" : "count", example),
                   kExitUsage);
  limit.value = *value;
  return limit;
}

struct Totals {
  bool matched = false;
  int64_t growth = 0;
  uint64_t last_count = 0;
};

Totals sum_types(const LeakReport& r, const std::string& pattern) {
  Totals t;
  for (const TypeSeries& s : r.types) {
    if (!glob_match(pattern, s.type)) continue;
    t.matched = true;
    t.growth += static_cast<int64_t>(s.bytes.back()) - static_cast<int64_t>(s.bytes.front());
    t.last_count += s.counts.back();
  }
  return t;
}

void run_check(const CheckOptions& opt) {
  std::vector<Limit> growth, counts;
  for (const auto& text : opt.max_growth) growth.push_back(parse_limit("--max-growth", text, true));
  for (const auto& text : opt.max_count) counts.push_back(parse_limit("--max-count", text, false));
  const bool no_suspects = opt.no_suspects || (growth.empty() && counts.empty());
  const auto loaded = load_leaks(opt.files, LeakOptions{});
  const LeakReport& r = loaded->report;

  // The text table shows sizes and notes for people; JSON and CSV carry the limit and the
  // value as numbers with their unit.
  const bool text = opt.format == Format::Table;
  Table table("checks", fmt::format("Checks over {} heap walk(s)", r.walks.size()));
  table.add_column("check", "CHECK").add_column("subject", "SUBJECT");
  if (text) {
    table.add_column("limit", "LIMIT").add_column("value", "VALUE");
  } else {
    table.add_column("limit", "LIMIT", ColumnKind::Count).add_column("value", "VALUE", ColumnKind::DeltaCount);
    table.add_column("unit", "UNIT");
  }
  table.add_column("passed", "RESULT");
  std::vector<std::string> failures;  // one per FAIL row: the count the last line gives
  struct CheckOutcome {
    std::string check, subject, limit_text, value_text, unit;
    std::optional<uint64_t> limit;
    int64_t value = 0;
    bool passed = false;
  };
  // Each suspect is a row of its own under the no-suspects check, and counts as a failure.
  auto add = [&](const CheckOutcome& o) {
    std::vector<Cell> row = {o.check, o.subject};
    if (text) {
      row.emplace_back(o.limit_text);
      row.emplace_back(o.value_text);
    } else {
      row.push_back(o.limit ? Cell(*o.limit) : Cell());
      row.emplace_back(o.value);
      row.emplace_back(o.unit);
    }
    row.emplace_back(o.passed ? "ok" : "FAIL");
    table.add_row(std::move(row));
    if (o.passed) return;
    failures.push_back(fmt::format("{}{}: {}{}", o.check, o.subject.empty() ? "" : " " + o.subject, o.value_text,
                                   o.limit_text.empty() ? "" : " (limit " + o.limit_text + ")"));
  };
  for (const Limit& l : growth) {
    const Totals t = sum_types(r, l.pattern);
    if (!t.matched) throw CliError(fmt::format("--max-growth '{}': no type matches '{}'", l.pattern + "=" + l.text, l.pattern), kExitUsage);
    add({"max-growth", l.pattern, format_bytes(l.value), format_delta_bytes(t.growth), "bytes", l.value, t.growth,
         t.growth <= 0 || static_cast<uint64_t>(t.growth) <= l.value});
  }
  for (const Limit& l : counts) {
    const Totals t = sum_types(r, l.pattern);
    if (!t.matched) throw CliError(fmt::format("--max-count '{}': no type matches '{}'", l.pattern + "=" + l.text, l.pattern), kExitUsage);
    add({"max-count", l.pattern, std::to_string(l.value), std::to_string(t.last_count), "objects", l.value,
         static_cast<int64_t>(t.last_count), t.last_count <= l.value});
  }
  if (no_suspects) {
    if (r.too_few_walks) {
      add({"no-suspects", "", "0", fmt::format("not judged: {} heap walk(s) (3 needed)", r.walks.size()), "heap walks",
           std::nullopt, static_cast<int64_t>(r.walks.size()), false});
    } else {
      add({"no-suspects", "", "0", fmt::format("{} suspect(s)", r.suspects.size()), "suspects", 0,
           static_cast<int64_t>(r.suspects.size()), r.suspects.empty()});
      for (const LeakSuspect& s : r.suspects)
        add({"suspect", s.type, "",
             fmt::format("{} new objects still alive, {} retained", s.accumulated_count, format_delta_bytes(s.retained_growth)),
             "objects", std::nullopt, static_cast<int64_t>(s.accumulated_count), false});
    }
  }
  Report report;
  report.tables.push_back(std::move(table));
  print_report(report, opt.format);
  if (failures.empty()) return;
  std::fflush(stdout);
  for (const auto& f : failures) fmt::print(stderr, "gcsnap: check: FAIL {}\n", f);
  throw CliError(fmt::format("{}: {} check(s) failed", opt.files.front(), failures.size()), kExitProblems);
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto opt = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand("check", "Check limits on a recording for CI: exit 1 with the list of what failed");
  cmd->add_option("files", opt->files, "recordings of one app")->required();
  cmd->add_option("--max-growth", opt->max_growth,
                  "PATTERN=SIZE: the bytes of the types matching PATTERN (glob) grow at most SIZE from the first heap "
                  "walk to the last (repeatable)");
  cmd->add_option("--max-count", opt->max_count,
                  "TYPE=N: at most N objects of the types matching TYPE (glob) at the last heap walk (repeatable)");
  cmd->add_flag("--no-suspects", opt->no_suspects, "fail on any leak suspect (the default when no limit is given)");
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_check(*opt); });
}

}  // namespace gcsnap::cli
