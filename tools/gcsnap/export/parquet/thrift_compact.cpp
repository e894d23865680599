// Thrift compact protocol (the Apache Thrift "compact protocol" specification): field headers
// carry the id delta in the high nibble when it is 1..15, else a zigzag varint id follows;
// integers are zigzag varints; a boolean field's value is its type code.
#include "export/parquet/thrift_compact.hpp"

namespace gcsnap::parquet {

void ThriftWriter::write_varint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void ThriftWriter::field_header(int16_t id, ThriftType type) {
  const int delta = id - last_id_;
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
  } else {
    out_.push_back(static_cast<char>(type));
    write_varint(zigzag(id));
  }
  last_id_ = id;
}

void ThriftWriter::field_i32(int16_t id, int32_t value) {
  field_header(id, ThriftType::I32);
  write_varint(zigzag(value));
}

void ThriftWriter::field_i64(int16_t id, int64_t value) {
  field_header(id, ThriftType::I64);
  write_varint(zigzag(value));
}

void ThriftWriter::field_bool(int16_t id, bool value) {
  field_header(id, value ? ThriftType::BoolTrue : ThriftType::BoolFalse);
}

void ThriftWriter::field_binary(int16_t id, std::string_view value) {
  field_header(id, ThriftType::Binary);
  elem_binary(value);
}

void ThriftWriter::elem_binary(std::string_view value) {
  write_varint(value.size());
  out_.append(value);
}

void ThriftWriter::field_struct(int16_t id) {
  field_header(id, ThriftType::Struct);
  begin_struct();
}

void ThriftWriter::field_list(int16_t id, ThriftType type, size_t size) {
  field_header(id, ThriftType::List);
  if (size < 15) {
    out_.push_back(static_cast<char>((size << 4) | static_cast<size_t>(type)));
  } else {
    out_.push_back(static_cast<char>(0xF0 | static_cast<int>(type)));
    write_varint(size);
  }
}

void ThriftWriter::begin_struct() {
  parents_.push_back(last_id_);
  last_id_ = 0;
}

void ThriftWriter::end_struct() {
  out_.push_back(0);  // STOP
  if (!parents_.empty()) {
    last_id_ = parents_.back();
    parents_.pop_back();
  }
}

}  // namespace gcsnap::parquet
