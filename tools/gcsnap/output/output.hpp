#pragma once
// Shared CLI output: a small table model printed as an aligned text table, JSON or CSV.
//
// A command fills a Report (one or more named Tables) and calls print_report. Formats
// (docs/cli.md "Output formats"):
//   table  aligned columns; byte sizes human-readable ("1.5 MiB"); numbers right-aligned.
//          On a terminal, lines fit its width: TypeName columns are shortened (short_names.hpp)
//          unless --wide; pipes and files get full names.
//   json   one table: an array of objects whose keys are the column keys, in column order;
//          several tables: an object {"<table name>": [ ... ], ...} in report order.
//          Counts, bytes and shares are JSON numbers, flags JSON booleans; addresses are
//          strings "0x..."; an empty cell is null. Keys never depend on the data.
//   csv    RFC 4180: header row of column keys, CRLF line ends, fields quoted when they hold
//          a comma, quote, CR or LF. Several tables are separated by one empty line.
// `--table NAME` prints one table of a report alone (a plain JSON array, one CSV header).

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace gcsnap::cli {

enum class Format { Table, Json, Csv };

/// How a column's values are rendered.
enum class ColumnKind {
  Text,        ///< left-aligned string
  TypeName,    ///< left-aligned type name (or text made of type names, such as a path):
               ///< tables shorten it to fit the terminal
  Count,       ///< unsigned or signed integer
  Bytes,       ///< byte size: "1.5 MiB" in tables, raw integer elsewhere
  DeltaCount,  ///< signed integer shown with a sign in tables ("+12", "-3", "0")
  DeltaBytes,  ///< signed byte size: "+1.5 MiB" in tables, raw integer elsewhere
  Address,     ///< "0x..." everywhere (a string in JSON: addresses exceed 2^53)
  Share,       ///< a fraction (Cell::real, 0..1): "84.1%" in tables, the number elsewhere
  Boolean,     ///< Cell::boolean: "yes"/"no" in tables, true/false in JSON and CSV
};

/// Where a column appears: some values read best as one text for people and as separate
/// numbers for scripts ("500/500" in a table, path_same and path_examined in JSON).
enum class Shown { Everywhere, TableOnly, MachineOnly };

struct Column {
  std::string key;    ///< JSON key and CSV header: lower_snake_case, stable
  std::string title;  ///< table header
  ColumnKind kind = ColumnKind::Text;
  Shown shown = Shown::Everywhere;
  /// 0: always shown. Otherwise a text table too wide for the terminal leaves this column
  /// out, the highest rank first, before it cuts type names below a readable width.
  int narrow_drop_rank = 0;
};

/// One value: text, an integer, or empty.
class Cell {
 public:
  Cell() = default;
  Cell(std::string text) : type_(Type::Text), text_(std::move(text)) {}  // NOLINT
  Cell(const char* text) : type_(Type::Text), text_(text) {}            // NOLINT
  Cell(std::string_view text) : type_(Type::Text), text_(text) {}       // NOLINT
  // One constructor per integer type, not per uint64_t/int64_t: those are `long` on Linux and
  // `long long` on Windows.
  Cell(unsigned long long value) : type_(Type::Unsigned), u_(value) {}  // NOLINT
  Cell(long long value) : type_(Type::Signed), i_(value) {}             // NOLINT
  Cell(unsigned long value) : Cell(static_cast<unsigned long long>(value)) {}  // NOLINT
  Cell(long value) : Cell(static_cast<long long>(value)) {}             // NOLINT
  Cell(unsigned value) : Cell(static_cast<unsigned long long>(value)) {}// NOLINT
  Cell(int value) : Cell(static_cast<long long>(value)) {}              // NOLINT
  static Cell empty() { return Cell(); }
  static Cell real(double value) {
    Cell c;
    c.type_ = Type::Real;
    c.d_ = value;
    return c;
  }
  static Cell boolean(bool value) {
    Cell c;
    c.type_ = Type::Bool;
    c.u_ = value ? 1 : 0;
    return c;
  }

  enum class Type { Empty, Text, Unsigned, Signed, Real, Bool };
  Type type() const noexcept { return type_; }
  const std::string& text() const noexcept { return text_; }
  uint64_t as_unsigned() const noexcept { return u_; }
  int64_t as_signed() const noexcept { return i_; }
  double as_real() const noexcept { return d_; }
  bool as_bool() const noexcept { return u_ != 0; }

 private:
  Type type_ = Type::Empty;
  std::string text_;
  uint64_t u_ = 0;
  int64_t i_ = 0;
  double d_ = 0;
};

class Table {
 public:
  Table() = default;
  /// name is the JSON key when a report has several tables; title is shown above a text table.
  Table(std::string name, std::string title) : name_(std::move(name)), title_(std::move(title)) {}
  Table& add_column(std::string key, std::string title, ColumnKind kind = ColumnKind::Text,
                    Shown shown = Shown::Everywhere);
  /// Let a narrow terminal leave out the column added last (Column::narrow_drop_rank).
  Table& drop_when_narrow(int rank);
  /// Append a row; it must have one cell per column (throws std::logic_error otherwise).
  void add_row(std::vector<Cell> cells);
  /// Make the rows on demand instead of storing them: COUNT rows after the stored ones, row i
  /// (0-based among them) from SOURCE(i), one cell per column. For tables of millions of rows
  /// (`dominators --top 0`): JSON and CSV are written a row at a time as they are made.
  void set_row_source(size_t count, std::function<std::vector<Cell>(size_t)> source);

  const std::string& name() const noexcept { return name_; }
  const std::string& title() const noexcept { return title_; }
  void set_title(std::string title) { title_ = std::move(title); }
  const std::vector<Column>& columns() const noexcept { return columns_; }
  size_t row_count() const noexcept { return rows_.size() + source_count_; }
  /// Visit every row in order, stored then made (throws std::logic_error for a made row with
  /// the wrong number of cells).
  void for_each_row(const std::function<void(const std::vector<Cell>&)>& visit) const;
  bool empty() const noexcept { return row_count() == 0; }

 private:
  std::string name_, title_;
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
  size_t source_count_ = 0;
  std::function<std::vector<Cell>(size_t)> source_;
};

/// Tables printed together, plus free-text notes that only the table format shows
/// (e.g. "3 roots were dropped by the recorder"). Notes go to the end in table format.
struct Report {
  std::vector<Table> tables;
  std::vector<std::string> notes;
};

/// How a report is rendered beyond its format.
struct RenderOptions {
  size_t width = 0;   ///< fit text tables into this many columns; 0: no limit (full names)
  std::string table;  ///< print only the table of this name (empty: all)
};

std::string render_table(const Table& table, Format format, size_t width = 0);
/// Throws CliError(kExitUsage) when options.table names no table of the report.
std::string render_report(const Report& report, Format format, const RenderOptions& options = {});
/// Render with the options of the command line (--wide, --table) and the width of `out`
/// (terminal_width), then write. PIPE_WIDTH, when not 0, is the width text tables get on a
/// pipe or file (text_width) instead of full names: for a table whose full names make lines
/// of some 200 columns (`dominators --by type`).
void print_report(const Report& report, Format format, std::FILE* out = stdout, size_t pipe_width = 0);
/// Write REPORT to OUT as render_report would, each table as its rows are made (JSON/CSV are
/// never held whole).
void stream_report(const Report& report, Format format, const RenderOptions& options, std::FILE* out);

/// The width text tables get on `out`: GCSNAP_WIDTH when set (a number; 0 = no limit, even on
/// a terminal: tests force widths with it); else, on a terminal, its width (TIOCGWINSZ, then
/// COLUMNS, then 80); else 0 (pipes and files get full names).
size_t terminal_width(std::FILE* out);

/// The width of free text (not a table) on `out`: 0 (no limit) with --wide; else
/// terminal_width, or DEFAULT_WIDTH on a pipe or file unless GCSNAP_WIDTH is set.
size_t text_width(std::FILE* out, size_t default_width);
/// Whether --table NAME was given (a command that prints text may print tables instead).
bool output_table_requested();

/// "0" "512 B" "1.5 KiB" "12.0 MiB": binary units, one decimal above bytes.
std::string format_bytes(uint64_t bytes);
/// "+1.5 KiB", "-512 B", "0 B".
std::string format_delta_bytes(int64_t bytes);
/// "0x7f12ab00" (lower-case, no padding).
std::string format_address(uint64_t address);
/// Parse an address argument, the one rule of every command (docs/cli.md "Addresses"): hex,
/// with or without 0x ("0x7f12ab00", "7f12ab00", "7F12AB00"), at most 16 digits. Decimal is
/// not accepted ("1500" is 0x1500). Throws CliError(kExitUsage) naming the text otherwise.
uint64_t parse_address(std::string_view text);
/// Escape a string for the inside of JSON quotes (control characters as \u00XX).
std::string json_escape(std::string_view text);
/// Quote a CSV field per RFC 4180 when it needs it; return it unchanged otherwise.
std::string csv_field(std::string_view text);
/// Parse "table", "json" or "csv"; throws CliError(kExitUsage) otherwise.
Format parse_format(std::string_view name);

/// Add `--format table|json|csv` to a subcommand (the choice lands in *format), with
/// `--wide` (full type names on a terminal) and `--table NAME` (one table of the report),
/// which print_report reads.
void add_format_option(CLI::App& cmd, Format& format);

}  // namespace gcsnap::cli
