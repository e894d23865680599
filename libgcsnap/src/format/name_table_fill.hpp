#pragma once
// The reader's decoders append to a NameTable's columns, which the table keeps private; the
// reader sorts and checks them once the GC's sections are decoded (read_names_range).

#include <memory>
#include <vector>

#include "gcsnap/reader.hpp"

namespace gcsnap::format {

struct NameTableFill {
  static std::vector<TypeRecord>& types(NameTable& table) noexcept { return table.types_; }
  static std::vector<MethodRecord>& methods(NameTable& table) noexcept { return table.methods_; }
  static std::vector<TypeLayout>& layouts(NameTable& table) noexcept { return table.layouts_; }
  /// Keep the text the table's views point into.
  static void keep(NameTable& table, std::unique_ptr<char[]> text) { table.storage_.push_back(std::move(text)); }
  /// Keep the field records the table's layouts point into.
  static void keep(NameTable& table, std::unique_ptr<FieldRecord[]> fields) {
    table.field_storage_.push_back(std::move(fields));
  }
};

}  // namespace gcsnap::format
