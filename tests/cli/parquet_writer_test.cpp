// The Parquet writer's encoders: the Thrift compact protocol's bytes, PLAIN values, page and
// row group cuts, and the file's frame. DuckDB and a second reader check whole files
// (tests/engines); these pin the bytes those readers depend on.
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <zstd.h>

#include "export/parquet/parquet_writer.hpp"
#include "export/parquet/thrift_compact.hpp"

using namespace gcsnap::parquet;

namespace {

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

struct Cursor {
  const std::string& s;
  size_t pos = 0;
  uint8_t byte() { return static_cast<uint8_t>(s.at(pos++)); }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = byte();
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
  }
  int64_t zigzag() {
    const uint64_t v = varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
};

// A data page as ParquetWriter writes it: PageHeader{1: type, 2: uncompressed, 3: compressed,
// 5: DataPageHeader{1: num_values, 2..4: encodings}} then the zstd frame.
// A dictionary page: PageHeader{1: type 2, 2, 3, 7: DictionaryPageHeader{1: num_values,
// 2: PLAIN}} then the zstd frame of the PLAIN values.
struct Page {
  int64_t values = 0;
  int64_t encoding = 0;
  std::string plain;
};

Page read_page(Cursor& c, bool dictionary = false) {
  Page p;
  REQUIRE(c.byte() == 0x15);
  REQUIRE(c.zigzag() == (dictionary ? 2 : 0));  // DICTIONARY_PAGE or DATA_PAGE
  REQUIRE(c.byte() == 0x15);
  const int64_t uncompressed = c.zigzag();
  REQUIRE(c.byte() == 0x15);
  const int64_t compressed = c.zigzag();
  REQUIRE(c.byte() == (dictionary ? 0x4C : 0x2C));  // field 7 or 5, struct
  REQUIRE(c.byte() == 0x15);
  p.values = c.zigzag();
  REQUIRE(c.byte() == 0x15);
  p.encoding = c.zigzag();  // PLAIN (0) or RLE_DICTIONARY (8)
  if (!dictionary) {
    REQUIRE(c.byte() == 0x15);
    REQUIRE(c.zigzag() == 3);  // RLE
    REQUIRE(c.byte() == 0x15);
    REQUIRE(c.zigzag() == 3);
  }
  REQUIRE(c.byte() == 0);  // end of the page's own header
  REQUIRE(c.byte() == 0);  // end of PageHeader
  p.plain.resize(static_cast<size_t>(uncompressed));
  const size_t n = ZSTD_decompress(p.plain.data(), p.plain.size(), c.s.data() + c.pos, static_cast<size_t>(compressed));
  REQUIRE(n == static_cast<size_t>(uncompressed));
  c.pos += static_cast<size_t>(compressed);
  return p;
}

std::string write_file(const std::vector<ColumnSpec>& columns, WriterOptions options,
                       const std::function<void(ParquetWriter&)>& rows) {
  std::string file;
  ParquetWriter w(columns, [&](std::string_view b) { file.append(b); }, std::move(options));
  rows(w);
  w.close();
  REQUIRE(w.bytes_written() == file.size());
  return file;
}

}  // namespace

TEST_CASE("thrift compact: zigzag varints") {
  CHECK(ThriftWriter::zigzag(0) == 0);
  CHECK(ThriftWriter::zigzag(-1) == 1);
  CHECK(ThriftWriter::zigzag(1) == 2);
  CHECK(ThriftWriter::zigzag(-2) == 3);
  CHECK(ThriftWriter::zigzag(INT64_MIN) == UINT64_MAX);
  ThriftWriter w;
  w.write_varint(300);
  CHECK(w.bytes() == bytes({0xAC, 0x02}));
}

TEST_CASE("thrift compact: field headers use the delta form up to 15, then the long form") {
  ThriftWriter w;
  w.field_i32(1, 5);    // delta 1, I32: 0x15, zigzag 5 = 10
  w.field_i64(16, -1);  // delta 15, I64: 0xF6, zigzag -1 = 1
  w.field_i32(40, 1);   // delta 24: type byte 0x05, then zigzag(40) = 80
  CHECK(w.bytes() == bytes({0x15, 0x0A, 0xF6, 0x01, 0x05, 0x50, 0x02}));
}

TEST_CASE("thrift compact: nested structs restore the parent's field ids") {
  ThriftWriter w;
  w.field_struct(3);
  w.field_i32(1, 0);
  w.end_struct();
  w.field_i32(4, 0);  // delta 1 from field 3, not from the nested field 1
  w.end_struct();
  CHECK(w.bytes() == bytes({0x3C, 0x15, 0x00, 0x00, 0x15, 0x00, 0x00}));
}

TEST_CASE("thrift compact: booleans, binaries and lists") {
  ThriftWriter w;
  w.field_bool(1, true);
  w.field_bool(2, false);
  w.field_binary(3, "ab");
  w.field_list(4, ThriftType::I32, 2);
  w.elem_i32(1);
  w.elem_i32(-1);
  w.field_list(5, ThriftType::Binary, 20);
  CHECK(w.bytes() == bytes({0x11, 0x12, 0x18, 0x02, 'a', 'b', 0x19, 0x25, 0x02, 0x01, 0x19, 0xF8, 0x14}));
}

TEST_CASE("parquet: a file is framed by PAR1 and ends with its footer's length") {
  const std::string file = write_file({{"x", ColumnType::Int64}}, {}, [](ParquetWriter& w) {
    for (int64_t v : {1, -2, 3}) {
      w.add_int64(0, v);
      w.end_row();
    }
  });
  REQUIRE(file.size() > 12);
  CHECK(file.substr(0, 4) == "PAR1");
  CHECK(file.substr(file.size() - 4) == "PAR1");
  uint32_t footer = 0;
  std::memcpy(&footer, file.data() + file.size() - 8, 4);  // little-endian on the test hosts
  REQUIRE(footer + 12u <= file.size());
  // FileMetaData starts with version 1 (field 1, i32) and the schema list (root + 1 column).
  CHECK(file.substr(file.size() - 8 - footer, 3) == bytes({0x15, 0x02, 0x19}));
  Cursor c{file, 4};
  const Page p = read_page(c);
  CHECK(p.values == 3);
  std::string plain;
  for (int64_t v : {1, -2, 3}) {
    uint64_t u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) plain.push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
  }
  CHECK(p.plain == plain);
  CHECK(c.pos == file.size() - 8 - footer);  // the footer follows the only column chunk
}

TEST_CASE("parquet: PLAIN booleans are bit-packed least significant bit first, strings use a dictionary") {
  const std::string file =
      write_file({{"b", ColumnType::Boolean}, {"s", ColumnType::String}}, {}, [](ParquetWriter& w) {
        for (int i = 0; i < 10; ++i) {
          w.add_string(1, i == 0 ? "hé" : i % 2 ? "a" : "");  // any column order within a row
          w.add_bool(0, i % 3 == 0);
          w.end_row();
        }
      });
  Cursor c{file, 4};
  const Page b = read_page(c);
  CHECK(b.values == 10);
  CHECK(b.plain == bytes({0x49, 0x02}));  // rows 0, 3, 6 in byte 0; row 9 in byte 1
  CHECK(b.encoding == 0);
  // The dictionary: "hé", "a", "" in order of first use, PLAIN (length-prefixed).
  const Page d = read_page(c, true);
  CHECK(d.values == 3);
  CHECK(d.encoding == 0);
  CHECK(d.plain == bytes({3, 0, 0, 0, 'h', 0xC3, 0xA9, 1, 0, 0, 0, 'a', 0, 0, 0, 0}));
  // The indices 0 1 2 1 2 1 2 1 2 1: bit width 2, one bit-packed run of 2 groups (header 5),
  // least significant bits first.
  const Page s = read_page(c);
  CHECK(s.values == 10);
  CHECK(s.encoding == 8);
  CHECK(s.plain == bytes({2, 5, 0x64, 0x66, 0x06, 0x00}));
}

TEST_CASE("parquet: pages are cut at page_bytes and row groups at row_group_rows") {
  WriterOptions options;
  options.page_bytes = 16;     // two INT64 values
  options.row_group_rows = 5;  // 7 rows: groups of 5 and 2
  const std::string file = write_file({{"x", ColumnType::Int32}, {"y", ColumnType::Int64}}, options,
                                      [](ParquetWriter& w) {
                                        for (int i = 0; i < 7; ++i) {
                                          w.add_int32(0, i);
                                          w.add_int64(1, i);
                                          w.end_row();
                                        }
                                      });
  Cursor c{file, 4};
  // Row group 1: x in pages of 4 + 1 values, y in pages of 2 + 2 + 1.
  std::vector<int64_t> counts;
  for (int i = 0; i < 5; ++i) counts.push_back(read_page(c).values);
  CHECK(counts == std::vector<int64_t>{4, 1, 2, 2, 1});
  CHECK(read_page(c).values == 2);  // row group 2: x
  CHECK(read_page(c).values == 2);  // row group 2: y
}

TEST_CASE("parquet: a row without a value for every column is an error, not a shifted table") {
  std::string file;
  ParquetWriter w({{"a", ColumnType::Int64}, {"b", ColumnType::Int64}}, [&](std::string_view b) { file.append(b); });
  w.add_int64(0, 1);
  CHECK_THROWS_AS(w.end_row(), std::runtime_error);
  ParquetWriter w2({{"a", ColumnType::Int64}}, [&](std::string_view b) { file.append(b); });
  w2.add_int64(0, 1);
  w2.add_int64(0, 2);
  CHECK_THROWS_AS(w2.end_row(), std::runtime_error);
}
