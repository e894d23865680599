#pragma once
// The Thrift compact protocol, only the writing half and only the types Parquet's metadata uses
// (parquet.thrift: FileMetaData, PageHeader): structs, i32, i64, binary, lists, booleans.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gcsnap::parquet {

/// The compact protocol's type codes (the low nibble of a field header).
enum class ThriftType : uint8_t {
  BoolTrue = 1,
  BoolFalse = 2,
  Byte = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  Double = 7,
  Binary = 8,
  List = 9,
  Set = 10,
  Map = 11,
  Struct = 12,
};

/// Append a Thrift compact encoding to a byte string: call field_* for each field in ascending
/// field id order, begin_struct/end_struct around nested structs, list_header before a list's
/// elements (struct elements then use begin_struct/end_struct, scalars the elem_* calls).
class ThriftWriter {
 public:
  void field_i32(int16_t id, int32_t value);
  void field_i64(int16_t id, int64_t value);
  void field_bool(int16_t id, bool value);
  void field_binary(int16_t id, std::string_view value);
  /// Start a nested struct as field ID; end it with end_struct().
  void field_struct(int16_t id);
  /// Start a list as field ID of SIZE elements of TYPE.
  void field_list(int16_t id, ThriftType type, size_t size);
  /// Start a struct that is a list element; end it with end_struct().
  void begin_struct();
  /// Write the stop byte of the innermost struct and return to its parent's field ids.
  void end_struct();
  void elem_i32(int32_t value) { write_varint(zigzag(value)); }
  void elem_binary(std::string_view value);

  const std::string& bytes() const noexcept { return out_; }
  std::string take() { return std::move(out_); }

  static uint64_t zigzag(int64_t v) noexcept { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
  void write_varint(uint64_t v);

 private:
  void field_header(int16_t id, ThriftType type);

  std::string out_;
  int16_t last_id_ = 0;
  std::vector<int16_t> parents_;  // last field id of each enclosing struct
};

}  // namespace gcsnap::parquet
