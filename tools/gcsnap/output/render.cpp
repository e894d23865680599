// The renderers: a Report as an aligned table for people, or as JSON or CSV (output.hpp).
#include "output/output.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "output/short_names.hpp"

namespace gcsnap::cli {

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
  for (size_t c = 0; c < cols.size(); ++c) {
    if (c) s += ',';
    s += csv_field(cols[c].key);
  }
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

// "note: " and TEXT, broken between words into lines of at most WIDTH columns (0: one line);
// continuation lines are indented under the text. A word wider than a line stays whole.
std::string wrapped_note(const std::string& text, size_t width) {
  constexpr size_t kIndent = 6;  // "note: "
  std::string out = "note: ";
  size_t used = kIndent;
  size_t i = 0;
  while (i < text.size()) {
    const size_t space = text.find(' ', i);
    const size_t end = space == std::string::npos ? text.size() : space;
    const std::string_view word(text.data() + i, end - i);
    const size_t w = display_width(word);
    if (width && used > kIndent && used + 1 + w > width) {
      out += "\n" + std::string(kIndent, ' ');
      used = kIndent;
    } else if (used > kIndent) {
      out += ' ';
      ++used;
    }
    out += word;
    used += w;
    i = end + 1;
  }
  return out + "\n";
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
    for (const auto& note : report.notes) out << wrapped_note(note, options.width);
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

void stream_report(const Report& report, Format format, const RenderOptions& options, std::FILE* out) {
  Sink sink(out);
  write_report(report, format, options, sink);
}

}  // namespace gcsnap::cli
