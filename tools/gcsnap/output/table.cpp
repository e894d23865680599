// The output model: a Table's columns and rows (output.hpp).
#include "output/output.hpp"

#include <stdexcept>

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

}  // namespace gcsnap::cli
