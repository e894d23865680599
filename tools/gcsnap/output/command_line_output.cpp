// What the command line asks of the output (--format, --wide, --table, the terminal's width),
// and print_report, which applies it.
#include <cstdlib>

#include <CLI/CLI.hpp>

#include "output/output.hpp"
#include "platform/console.hpp"

namespace gcsnap::cli {
namespace {

// What --wide and --table asked for; one command runs per process.
struct CommandLineOutput {
  bool wide = false;
  std::string table;
};

CommandLineOutput& command_line_output() {
  static CommandLineOutput settings;
  return settings;
}

size_t parse_width(const char* text) {
  if (!text || !*text) return SIZE_MAX;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  return *end == '\0' ? static_cast<size_t>(v) : SIZE_MAX;
}

}  // namespace

void add_format_option(CLI::App& cmd, Format& format) {
  cmd.add_option_function<std::string>(
         "--format", [&format](const std::string& name) { format = parse_format(name); },
         "output format: table (default), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd.add_flag_callback("--wide", [] { command_line_output().wide = true; },
                        "full type names in tables, even when they do not fit the terminal");
  cmd.add_option_function<std::string>(
      "--table", [](const std::string& name) { command_line_output().table = name; },
      "print only the table of this name (its JSON/CSV name; e.g. for loading CSV into pandas)");
}

size_t terminal_width(std::FILE* out) {
  if (const size_t forced = parse_width(std::getenv("GCSNAP_WIDTH")); forced != SIZE_MAX) return forced;
  if (!is_terminal(out)) return 0;
  if (const int columns = terminal_columns(out); columns > 0) return static_cast<size_t>(columns);
  if (const size_t columns = parse_width(std::getenv("COLUMNS")); columns != SIZE_MAX && columns > 0) return columns;
  return 80;
}

size_t text_width(std::FILE* out, size_t default_width) {
  if (command_line_output().wide) return 0;
  if (const size_t forced = parse_width(std::getenv("GCSNAP_WIDTH")); forced != SIZE_MAX) return forced;
  const size_t width = terminal_width(out);
  return width ? width : default_width;
}

bool output_table_requested() { return !command_line_output().table.empty(); }

void print_report(const Report& report, Format format, std::FILE* out, size_t pipe_width) {
  const CommandLineOutput& cl = command_line_output();
  RenderOptions options;
  options.width = pipe_width ? text_width(out, pipe_width) : cl.wide ? 0 : terminal_width(out);
  options.table = cl.table;
  stream_report(report, format, options, out);
}

}  // namespace gcsnap::cli
