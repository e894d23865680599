#include "output/output.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "platform/console.hpp"

#include "output/cli_error.hpp"
#include "output/short_names.hpp"

namespace gcsnap::cli {

Table& Table::add_column(std::string key, std::string title, ColumnKind kind, Shown shown) {
  columns_.push_back(Column{std::move(key), std::move(title), kind, shown});
  return *this;
}

Table& Table::drop_when_narrow(int rank) {
  if (columns_.empty()) throw std::logic_error("drop_when_narrow needs a column");
  columns_.back().narrow_drop_rank = rank;
  return *this;
}

void Table::add_row(std::vector<Cell> cells) {
  if (cells.size() != columns_.size()) throw std::logic_error("table row has the wrong number of cells");
  rows_.push_back(std::move(cells));
}

void Table::set_row_source(size_t count, std::function<std::vector<Cell>(size_t)> source) {
  source_count_ = source ? count : 0;
  source_ = std::move(source);
}

void Table::for_each_row(const std::function<void(const std::vector<Cell>&)>& visit) const {
  for (const auto& row : rows_) visit(row);
  for (size_t i = 0; i < source_count_; ++i) {
    const std::vector<Cell> row = source_(i);
    if (row.size() != columns_.size()) throw std::logic_error("table row has the wrong number of cells");
    visit(row);
  }
}

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  // Rounding can reach 1024.0 ("1024.0 KiB"); show the next unit instead.
  if (value >= 1023.95 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string format_delta_bytes(int64_t bytes) {
  if (bytes == 0) return "0 B";
  const uint64_t magnitude = bytes < 0 ? 0 - static_cast<uint64_t>(bytes) : static_cast<uint64_t>(bytes);
  return (bytes < 0 ? "-" : "+") + format_bytes(magnitude);
}

std::string format_address(uint64_t address) { return fmt::format("0x{:x}", address); }

uint64_t parse_address(std::string_view text) {
  std::string_view digits = text;
  if (digits.starts_with("0x") || digits.starts_with("0X")) digits.remove_prefix(2);
  const bool ok = !digits.empty() && digits.size() <= 16 &&
                  digits.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
  if (!ok)
    throw CliError(fmt::format("'{}' is not an address (write it in hex, with or without 0x, e.g. 0x7f3a10002000)", text),
                   kExitUsage);
  uint64_t value = 0;
  for (char c : digits) {
    const int v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    value = value * 16 + static_cast<uint64_t>(v);
  }
  return value;
}

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else out += c;
    }
  }
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

Format parse_format(std::string_view name) {
  if (name == "table") return Format::Table;
  if (name == "json") return Format::Json;
  if (name == "csv") return Format::Csv;
  throw CliError(fmt::format("unknown format '{}' (use table, json or csv)", name), kExitUsage);
}

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

namespace {

std::string plain_number(const Cell& cell) {
  switch (cell.type()) {
    case Cell::Type::Unsigned: return fmt::format("{}", cell.as_unsigned());
    case Cell::Type::Signed: return fmt::format("{}", cell.as_signed());
    // Shortest text that reads back as the same double: stable across runs and platforms.
    case Cell::Type::Real: return fmt::format("{}", cell.as_real());
    case Cell::Type::Bool: return cell.as_bool() ? "true" : "false";
    default: return cell.text();
  }
}

int64_t signed_value(const Cell& cell) {
  if (cell.type() == Cell::Type::Signed) return cell.as_signed();
  return static_cast<int64_t>(cell.as_unsigned());
}

// Text shown in an aligned table.
std::string human_text(const Cell& cell, ColumnKind kind) {
  if (cell.type() == Cell::Type::Empty) return "-";
  if (cell.type() == Cell::Type::Text) return cell.text();
  if (cell.type() == Cell::Type::Bool) return cell.as_bool() ? "yes" : "no";
  if (cell.type() == Cell::Type::Real)
    return kind == ColumnKind::Share ? fmt::format("{:.1f}%", 100.0 * cell.as_real()) : fmt::format("{}", cell.as_real());
  switch (kind) {
    case ColumnKind::Bytes:
      return cell.type() == Cell::Type::Signed && cell.as_signed() < 0 ? format_delta_bytes(cell.as_signed())
                                                                        : format_bytes(cell.as_unsigned());
    case ColumnKind::DeltaBytes: return format_delta_bytes(signed_value(cell));
    case ColumnKind::DeltaCount: {
      const int64_t v = signed_value(cell);
      return v > 0 ? fmt::format("+{}", v) : fmt::format("{}", v);
    }
    case ColumnKind::Address: return format_address(cell.as_unsigned());
    default: return plain_number(cell);
  }
}

// Text of a field in JSON/CSV: raw numbers, hex addresses.
std::string machine_text(const Cell& cell, ColumnKind kind) {
  if (cell.type() != Cell::Type::Text && kind == ColumnKind::Address && cell.type() != Cell::Type::Empty)
    return format_address(cell.as_unsigned());
  return plain_number(cell);
}

bool is_right_aligned(ColumnKind kind) {
  return kind != ColumnKind::Text && kind != ColumnKind::TypeName && kind != ColumnKind::Boolean;
}

// The columns a format shows, in order.
std::vector<Column> visible_columns(const Table& table, bool for_people) {
  std::vector<Column> cols;
  for (const auto& col : table.columns())
    if (col.shown == Shown::Everywhere || (col.shown == Shown::TableOnly) == for_people) cols.push_back(col);
  return cols;
}

std::vector<size_t> visible_indices(const Table& table, bool for_people) {
  std::vector<size_t> out;
  for (size_t c = 0; c < table.columns().size(); ++c) {
    const Shown shown = table.columns()[c].shown;
    if (shown == Shown::Everywhere || (shown == Shown::TableOnly) == for_people) out.push_back(c);
  }
  return out;
}

// A type name column is not shrunk below this (or its title).
constexpr size_t kMinTypeWidth = 16;

// Type names narrower than this are hard to read: a table drops its optional columns before
// it cuts names below it.
constexpr size_t kReadableTypeWidth = 32;

size_t line_width(const std::vector<size_t>& widths) {
  size_t total = 0;
  for (size_t w : widths) total += w;
  return total + 2 * (widths.empty() ? 0 : widths.size() - 1);
}

// Leave out optional columns (highest narrow_drop_rank first) while the line, with its type
// names cut to a readable width, is wider than `width`. Returns the titles left out.
std::vector<std::string> drop_narrow_columns(std::vector<Column>& cols, std::vector<std::vector<std::string>>& texts,
                                             std::vector<size_t>& widths, size_t width) {
  std::vector<std::string> dropped;
  for (;;) {
    std::vector<size_t> readable = widths;
    for (size_t c = 0; c < cols.size(); ++c)
      if (cols[c].kind == ColumnKind::TypeName)
        readable[c] = std::min(widths[c], std::max(kReadableTypeWidth, display_width(cols[c].title)));
    if (line_width(readable) <= width) break;
    size_t victim = SIZE_MAX;
    for (size_t c = 0; c < cols.size(); ++c)
      if (cols[c].narrow_drop_rank > 0 && (victim == SIZE_MAX || cols[c].narrow_drop_rank > cols[victim].narrow_drop_rank))
        victim = c;
    if (victim == SIZE_MAX) break;
    dropped.push_back(cols[victim].title);
    cols.erase(cols.begin() + static_cast<std::ptrdiff_t>(victim));
    widths.erase(widths.begin() + static_cast<std::ptrdiff_t>(victim));
    for (auto& row : texts) row.erase(row.begin() + static_cast<std::ptrdiff_t>(victim));
  }
  return dropped;
}

// Shrink the TypeName columns, widest first, until a line fits `width`; then shorten their
// cells to the widths chosen. Other columns keep their width: numbers are never cut.
void fit_width(const std::vector<Column>& cols, std::vector<std::vector<std::string>>& texts,
               std::vector<size_t>& widths, size_t width) {
  size_t total = line_width(widths);
  std::vector<size_t> target = widths;
  while (total > width) {
    size_t widest = SIZE_MAX;
    for (size_t c = 0; c < cols.size(); ++c) {
      const size_t floor = std::max(kMinTypeWidth, display_width(cols[c].title));
      if (cols[c].kind == ColumnKind::TypeName && target[c] > floor && (widest == SIZE_MAX || target[c] > target[widest]))
        widest = c;
    }
    if (widest == SIZE_MAX) break;  // every name column is as narrow as it gets
    --target[widest];
    --total;
  }
  for (size_t c = 0; c < cols.size(); ++c) {
    if (target[c] == widths[c]) continue;
    std::vector<std::string> names;
    for (const auto& row : texts) names.push_back(row[c]);
    const std::vector<std::string> shortened = shorten_type_names(names, target[c]);
    widths[c] = display_width(cols[c].title);
    for (size_t r = 0; r < texts.size(); ++r) {
      // "-" (no value) stays as it is.
      if (texts[r][c] != "-") texts[r][c] = shortened[r];
      widths[c] = std::max(widths[c], display_width(texts[r][c]));
    }
  }
}

std::string render_text(const Table& table, size_t width) {
  std::vector<Column> cols = visible_columns(table, true);
  const std::vector<size_t> index = visible_indices(table, true);
  std::vector<std::vector<std::string>> texts;
  std::vector<size_t> widths(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) widths[c] = display_width(cols[c].title);
  texts.reserve(table.row_count());
  table.for_each_row([&](const std::vector<Cell>& row) {
    auto& out = texts.emplace_back();
    out.reserve(cols.size());
    for (size_t c = 0; c < cols.size(); ++c) {
      out.push_back(human_text(row[index[c]], cols[c].kind));
      widths[c] = std::max(widths[c], display_width(out.back()));
    }
  });
  std::vector<std::string> dropped;
  if (width != 0) {
    dropped = drop_narrow_columns(cols, texts, widths, width);
    fit_width(cols, texts, widths, width);
  }
  // Appends in place: a table of 100 000 rows builds no string per line or per cell.
  std::string s;
  size_t line_width = 2 * cols.size() + 1;
  for (size_t w : widths) line_width += w;
  s.reserve(line_width * (texts.size() + 2) + table.title().size());
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cols.size(); ++c) {
      const bool last = c + 1 == cols.size();
      const size_t pad = widths[c] - display_width(cells[c]);
      if (is_right_aligned(cols[c].kind)) s.append(pad, ' ').append(cells[c]);
      else if (last) s.append(cells[c]);
      else s.append(cells[c]).append(pad, ' ');
      if (!last) s.append("  ");
    }
    s += '\n';
  };
  if (!table.title().empty()) s += table.title() + "\n";
  std::vector<std::string> header;
  for (const auto& col : cols) header.push_back(col.title);
  line(header);
  for (const auto& row : texts) line(row);
  if (table.empty()) s += "  (none)\n";
  if (!dropped.empty()) {
    std::string titles;
    for (const auto& t : dropped) titles += (titles.empty() ? "" : ", ") + t;
    s += fmt::format("  ({} left out to fit {} columns; --wide shows every column)\n", titles, width);
  }
  return s;
}

// Where JSON and CSV go: a string (render_*), or a file written as the rows are made
// (print_report), so that a table of millions of rows is never held whole.
class Sink {
 public:
  explicit Sink(std::string& text) : text_(&text) {}
  explicit Sink(std::FILE* out) : out_(out) {}
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() { flush(); }
  /// Indent every line after the next newline by two spaces (a table nested in a JSON object).
  void set_indent(bool on) { indent_ = on; }
  Sink& operator<<(std::string_view text) {
    if (!indent_) {
      buffer_.append(text);
    } else {
      for (char c : text) {
        buffer_ += c;
        if (c == '\n') buffer_ += "  ";
      }
    }
    if (buffer_.size() >= (size_t{1} << 16)) flush();
    return *this;
  }
  void flush() {
    if (text_) text_->append(buffer_);
    else if (!buffer_.empty()) std::fwrite(buffer_.data(), 1, buffer_.size(), out_);
    buffer_.clear();
  }

 private:
  std::string* text_ = nullptr;
  std::FILE* out_ = nullptr;
  std::string buffer_;
  bool indent_ = false;
};

void write_json(const Table& table, Sink& out) {
  const std::vector<Column> cols = visible_columns(table, false);
  const std::vector<size_t> index = visible_indices(table, false);
  out << "[";
  bool first = true;
  std::string s;
  table.for_each_row([&](const std::vector<Cell>& row) {
    s = first ? "\n  {" : ",\n  {";
    first = false;
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) s += ", ";
      s += fmt::format("\"{}\": ", json_escape(cols[c].key));
      const Cell& cell = row[index[c]];
      if (cell.type() == Cell::Type::Empty) s += "null";
      else if (cell.type() == Cell::Type::Text || cols[c].kind == ColumnKind::Address)
        s += fmt::format("\"{}\"", json_escape(machine_text(cell, cols[c].kind)));
      else s += plain_number(cell);
    }
    s += "}";
    out << s;
  });
  out << (first ? "]" : "\n]");
}

void write_csv(const Table& table, Sink& out) {
  const std::vector<Column> cols = visible_columns(table, false);
  const std::vector<size_t> index = visible_indices(table, false);
  std::string s;
  for (size_t c = 0; c < cols.size(); ++c) s += (c ? "," : "") + csv_field(cols[c].key);
  s += "\r\n";
  out << s;
  table.for_each_row([&](const std::vector<Cell>& row) {
    s.clear();
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) s += ',';
      s += csv_field(machine_text(row[index[c]], cols[c].kind));
    }
    s += "\r\n";
    out << s;
  });
}

void write_table(const Table& table, Format format, size_t width, Sink& out) {
  switch (format) {
    case Format::Json:
      write_json(table, out);
      out << "\n";
      return;
    case Format::Csv: write_csv(table, out); return;
    default: out << render_text(table, width); return;
  }
}

// The report's tables and notes, as render_report documents them.
void write_report(const Report& report, Format format, const RenderOptions& options, Sink& out) {
  if (!options.table.empty()) {
    std::string names;
    for (const auto& t : report.tables) {
      if (t.name() == options.table) return write_table(t, format, options.width, out);
      names += (names.empty() ? "" : ", ") + t.name();
    }
    throw CliError(fmt::format("no table '{}' in this output (tables: {})", options.table, names), kExitUsage);
  }
  if (format == Format::Json && report.tables.size() != 1) {
    out << "{";
    for (size_t i = 0; i < report.tables.size(); ++i) {
      out << fmt::format("{}\n  \"{}\": ", i ? "," : "", json_escape(report.tables[i].name()));
      // The nested array is indented by two spaces so the whole document stays readable.
      out.set_indent(true);
      write_json(report.tables[i], out);
      out.set_indent(false);
    }
    out << (report.tables.empty() ? "}\n" : "\n}\n");
    return;
  }
  for (size_t i = 0; i < report.tables.size(); ++i) {
    if (i) out << (format == Format::Csv ? "\r\n" : "\n");
    write_table(report.tables[i], format, options.width, out);
  }
  if (format == Format::Table && !report.notes.empty()) {
    out << "\n";
    for (const auto& note : report.notes) out << "note: " << note << "\n";
  }
}

}  // namespace

std::string render_table(const Table& table, Format format, size_t width) {
  std::string s;
  {
    Sink out(s);
    write_table(table, format, width, out);
  }
  return s;
}

std::string render_report(const Report& report, Format format, const RenderOptions& options) {
  std::string s;
  {
    Sink out(s);
    write_report(report, format, options, out);
  }
  return s;
}

void print_report(const Report& report, Format format, std::FILE* out) {
  const CommandLineOutput& cl = command_line_output();
  RenderOptions options;
  options.width = cl.wide ? 0 : terminal_width(out);
  options.table = cl.table;
  Sink sink(out);
  write_report(report, format, options, sink);
}

}  // namespace gcsnap::cli
