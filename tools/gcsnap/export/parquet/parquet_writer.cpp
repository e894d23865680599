// Parquet as parquet-format's parquet.thrift and Encodings.md define it: "PAR1", the column
// chunks of each row group (pages: a PageHeader, then the page's bytes compressed), the
// FileMetaData, its length (4 bytes little-endian) and "PAR1". All columns are REQUIRED, so a
// v1 data page holds the values alone (no repetition or definition levels): PLAIN, or for
// strings RLE_DICTIONARY indices into the chunk's dictionary page (PLAIN strings), which comes
// first in the chunk.
#include "export/parquet/parquet_writer.hpp"

#include <stdexcept>
#include <unordered_map>

#include <zstd.h>

#include "export/parquet/thrift_compact.hpp"

namespace gcsnap::parquet {

namespace {

// parquet.thrift enumerations.
constexpr int32_t kTypeBoolean = 0, kTypeInt32 = 1, kTypeInt64 = 2, kTypeByteArray = 6;
constexpr int32_t kRequired = 0;
constexpr int32_t kConvertedUtf8 = 0, kConvertedTimestampMicros = 10;
constexpr int32_t kEncodingPlain = 0, kEncodingRle = 3, kEncodingRleDictionary = 8;
constexpr int32_t kCodecZstd = 6;
constexpr int32_t kPageData = 0, kPageDictionary = 2;
constexpr std::string_view kMagic = "PAR1";
constexpr uint32_t kNoIndex = 0xFFFFFFFFu;

int32_t physical_type(ColumnType type) {
  switch (type) {
    case ColumnType::Int32: return kTypeInt32;
    case ColumnType::Boolean: return kTypeBoolean;
    case ColumnType::String: return kTypeByteArray;
    case ColumnType::Int64:
    case ColumnType::TimestampMicros: break;
  }
  return kTypeInt64;
}

void append_le(std::string& out, uint64_t v, int bytes) {
  char buffer[8];
  for (int i = 0; i < bytes; ++i) buffer[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  out.append(buffer, static_cast<size_t>(bytes));
}

// Lookups by string_view into the dictionaries, without a std::string per value.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// Dictionary indices as a data page's values: the bit width (one byte), then one bit-packed
// run of the RLE/bit-packed hybrid (Encodings.md): header (groups << 1 | 1) as a ULEB128, then
// the values least significant bit first, padded with zeros to a whole group of 8.
std::string encode_indices(const std::vector<uint32_t>& indices, uint32_t dictionary_size) {
  int width = 1;
  while (width < 32 && (uint64_t{1} << width) < dictionary_size) ++width;
  std::string out(1, static_cast<char>(width));
  const uint64_t groups = (indices.size() + 7) / 8;
  for (uint64_t h = (groups << 1) | 1; ; h >>= 7) {
    if (h < 0x80) {
      out.push_back(static_cast<char>(h));
      break;
    }
    out.push_back(static_cast<char>((h & 0x7F) | 0x80));
  }
  uint64_t bits = 0;
  int pending = 0;
  for (uint64_t i = 0; i < groups * 8; ++i) {
    bits |= static_cast<uint64_t>(i < indices.size() ? indices[i] : 0) << pending;
    pending += width;
    while (pending >= 8) {
      out.push_back(static_cast<char>(bits & 0xFF));
      bits >>= 8;
      pending -= 8;
    }
  }
  return out;
}

void write_schema_element(ThriftWriter& w, const ColumnSpec& spec) {
  w.begin_struct();
  w.field_i32(1, physical_type(spec.type));
  w.field_i32(3, kRequired);
  w.field_binary(4, spec.name);
  if (spec.type == ColumnType::String) {
    w.field_i32(6, kConvertedUtf8);
    w.field_struct(10);  // LogicalType
    w.field_struct(1);   // STRING
    w.end_struct();
    w.end_struct();
  } else if (spec.type == ColumnType::TimestampMicros) {
    w.field_i32(6, kConvertedTimestampMicros);
    w.field_struct(10);  // LogicalType
    w.field_struct(8);   // TIMESTAMP
    w.field_bool(1, true);  // isAdjustedToUTC
    w.field_struct(2);      // unit: TimeUnit
    w.field_struct(2);      // MICROS
    w.end_struct();
    w.end_struct();
    w.end_struct();
    w.end_struct();
  }
  w.end_struct();
}

}  // namespace

struct ParquetWriter::Column {
  ColumnSpec spec;
  std::string page;           // PLAIN values of the open page
  uint64_t page_values = 0;
  uint64_t group_values = 0;  // values in the open row group
  std::string chunk;          // finished pages (header + compressed bytes) of the row group
  uint64_t chunk_uncompressed = 0;
  // Strings: the row group's dictionary (PLAIN values) and the open page's indices into it.
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> dictionary;
  std::string last_value;  // the last string added and its index: runs of one value are common
  uint32_t last_index = kNoIndex;
  std::string dictionary_plain;
  std::vector<uint32_t> indices;
};

struct ParquetWriter::ChunkMeta {
  int32_t type = 0;
  uint64_t offset = 0;
  uint64_t values = 0;
  uint64_t uncompressed = 0;
  uint64_t compressed = 0;
  uint64_t dictionary_offset = 0;  // 0: no dictionary page
  uint64_t data_offset = 0;
};

ParquetWriter::ParquetWriter(std::vector<ColumnSpec> columns, ByteSink sink, WriterOptions options)
    : sink_(std::move(sink)), options_(std::move(options)) {
  if (columns.empty()) throw std::runtime_error("parquet: a schema needs at least one column");
  for (auto& spec : columns) {
    columns_.emplace_back();
    columns_.back().spec = std::move(spec);
  }
  if (options_.row_group_rows == 0) options_.row_group_rows = 1;
  zstd_ = ZSTD_createCCtx();
  if (!zstd_) throw std::runtime_error("parquet: out of memory for the zstd context");
  put(kMagic);
}

ParquetWriter::~ParquetWriter() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_)); }

void ParquetWriter::put(std::string_view bytes) {
  sink_(bytes);
  offset_ += bytes.size();
}

void ParquetWriter::add_int32(size_t column, int32_t value) {
  Column& c = columns_.at(column);
  append_le(c.page, static_cast<uint32_t>(value), 4);
  ++c.page_values, ++c.group_values;
}

void ParquetWriter::add_int64(size_t column, int64_t value) {
  Column& c = columns_.at(column);
  append_le(c.page, static_cast<uint64_t>(value), 8);
  ++c.page_values, ++c.group_values;
}

void ParquetWriter::add_bool(size_t column, bool value) {
  // PLAIN booleans: bit-packed, least significant bit first, one bit per value.
  Column& c = columns_.at(column);
  if (c.page_values % 8 == 0) c.page.push_back(0);
  if (value) c.page.back() = static_cast<char>(c.page.back() | (1 << (c.page_values % 8)));
  ++c.page_values, ++c.group_values;
}

void ParquetWriter::add_string(size_t column, std::string_view value) {
  Column& c = columns_.at(column);
  if (c.last_index == kNoIndex || value != c.last_value) {
    auto it = c.dictionary.find(value);
    if (it == c.dictionary.end()) {
      it = c.dictionary.emplace(std::string(value), static_cast<uint32_t>(c.dictionary.size())).first;
      append_le(c.dictionary_plain, value.size(), 4);
      c.dictionary_plain.append(value);
    }
    c.last_value.assign(value);
    c.last_index = it->second;
  }
  c.indices.push_back(c.last_index);
  ++c.page_values, ++c.group_values;
}

void ParquetWriter::end_row() {
  ++group_rows_;
  ++rows_;
  bool dictionary_full = false;
  for (Column& c : columns_) {
    if (c.group_values != group_rows_)
      throw std::runtime_error("parquet: row " + std::to_string(rows_) + " has " +
                               (c.group_values < group_rows_ ? "no" : "more than one") + " value for column " +
                               c.spec.name);
    // Cut pages at a value boundary; a boolean page only at a whole byte.
    if (c.page.size() + 4 * c.indices.size() >= options_.page_bytes &&
        (c.spec.type != ColumnType::Boolean || c.page_values % 8 == 0))
      flush_page(c);
    dictionary_full |= c.dictionary_plain.size() >= options_.dictionary_bytes;
  }
  // A full dictionary ends the row group early: the next one starts a new dictionary.
  if (group_rows_ >= options_.row_group_rows || dictionary_full) flush_row_group();
}

std::string ParquetWriter::compress(const std::string& bytes) {
  std::string compressed(ZSTD_compressBound(bytes.size()), '\0');
  const size_t n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(zstd_), compressed.data(), compressed.size(),
                                     bytes.data(), bytes.size(), options_.zstd_level);
  if (ZSTD_isError(n)) throw std::runtime_error(std::string("parquet: zstd: ") + ZSTD_getErrorName(n));
  compressed.resize(n);
  return compressed;
}

void ParquetWriter::flush_page(Column& c) {
  if (c.page_values == 0) return;
  const bool dictionary = c.spec.type == ColumnType::String;
  if (dictionary) c.page = encode_indices(c.indices, static_cast<uint32_t>(c.dictionary.size()));
  const std::string compressed = compress(c.page);
  ThriftWriter h;  // PageHeader
  h.field_i32(1, kPageData);
  h.field_i32(2, static_cast<int32_t>(c.page.size()));
  h.field_i32(3, static_cast<int32_t>(compressed.size()));
  h.field_struct(5);  // DataPageHeader
  h.field_i32(1, static_cast<int32_t>(c.page_values));
  h.field_i32(2, dictionary ? kEncodingRleDictionary : kEncodingPlain);
  h.field_i32(3, kEncodingRle);
  h.field_i32(4, kEncodingRle);
  h.end_struct();
  h.end_struct();
  c.chunk += h.bytes();
  c.chunk += compressed;
  c.chunk_uncompressed += h.bytes().size() + c.page.size();
  c.page.clear();
  c.indices.clear();
  c.page_values = 0;
}

std::string ParquetWriter::dictionary_page(Column& c, uint64_t& uncompressed) {
  const std::string compressed = compress(c.dictionary_plain);
  ThriftWriter h;  // PageHeader
  h.field_i32(1, kPageDictionary);
  h.field_i32(2, static_cast<int32_t>(c.dictionary_plain.size()));
  h.field_i32(3, static_cast<int32_t>(compressed.size()));
  h.field_struct(7);  // DictionaryPageHeader
  h.field_i32(1, static_cast<int32_t>(c.dictionary.size()));
  h.field_i32(2, kEncodingPlain);
  h.end_struct();
  h.end_struct();
  uncompressed = h.bytes().size() + c.dictionary_plain.size();
  return h.bytes() + compressed;
}

void ParquetWriter::flush_row_group() {
  if (group_rows_ == 0) return;
  std::vector<ChunkMeta> chunks;
  for (Column& c : columns_) {
    flush_page(c);
    ChunkMeta m{physical_type(c.spec.type), offset_, c.group_values, c.chunk_uncompressed, c.chunk.size(), 0, offset_};
    if (c.spec.type == ColumnType::String) {
      uint64_t uncompressed = 0;
      const std::string page = dictionary_page(c, uncompressed);
      m.dictionary_offset = offset_;
      m.data_offset = offset_ + page.size();
      m.uncompressed += uncompressed;
      m.compressed += page.size();
      put(page);
      c.dictionary.clear();
      c.dictionary_plain.clear();
      c.last_index = kNoIndex;
    }
    chunks.push_back(m);
    put(c.chunk);
    c.chunk.clear();
    c.chunk.shrink_to_fit();
    c.chunk_uncompressed = 0;
    c.group_values = 0;
  }
  row_groups_.push_back(std::move(chunks));
  row_group_rows_.push_back(group_rows_);
  group_rows_ = 0;
}

std::string ParquetWriter::encode_footer() const {
  ThriftWriter w;  // FileMetaData
  w.field_i32(1, 1);
  w.field_list(2, ThriftType::Struct, columns_.size() + 1);
  w.begin_struct();  // the root of the schema
  w.field_binary(4, "schema");
  w.field_i32(5, static_cast<int32_t>(columns_.size()));
  w.end_struct();
  for (const Column& c : columns_) write_schema_element(w, c.spec);
  w.field_i64(3, static_cast<int64_t>(rows_));
  w.field_list(4, ThriftType::Struct, row_groups_.size());
  for (size_t g = 0; g < row_groups_.size(); ++g) {
    w.begin_struct();  // RowGroup
    w.field_list(1, ThriftType::Struct, columns_.size());
    uint64_t uncompressed = 0, compressed = 0;
    for (size_t i = 0; i < columns_.size(); ++i) {
      const ChunkMeta& m = row_groups_[g][i];
      uncompressed += m.uncompressed;
      compressed += m.compressed;
      w.begin_struct();  // ColumnChunk
      w.field_i64(2, static_cast<int64_t>(m.offset));
      w.field_struct(3);  // ColumnMetaData
      w.field_i32(1, m.type);
      const bool dictionary = m.dictionary_offset != 0;
      w.field_list(2, ThriftType::I32, dictionary ? 2 : 1);
      w.elem_i32(kEncodingPlain);
      if (dictionary) w.elem_i32(kEncodingRleDictionary);
      w.field_list(3, ThriftType::Binary, 1);
      w.elem_binary(columns_[i].spec.name);
      w.field_i32(4, kCodecZstd);
      w.field_i64(5, static_cast<int64_t>(m.values));
      w.field_i64(6, static_cast<int64_t>(m.uncompressed));
      w.field_i64(7, static_cast<int64_t>(m.compressed));
      w.field_i64(9, static_cast<int64_t>(m.data_offset));
      if (dictionary) w.field_i64(11, static_cast<int64_t>(m.dictionary_offset));
      w.end_struct();
      w.end_struct();
    }
    w.field_i64(2, static_cast<int64_t>(uncompressed));
    w.field_i64(3, static_cast<int64_t>(row_group_rows_[g]));
    w.field_i64(5, static_cast<int64_t>(row_groups_[g][0].offset));
    w.field_i64(6, static_cast<int64_t>(compressed));
    w.end_struct();
  }
  if (!options_.key_values.empty()) {
    w.field_list(5, ThriftType::Struct, options_.key_values.size());
    for (const auto& [key, value] : options_.key_values) {
      w.begin_struct();
      w.field_binary(1, key);
      w.field_binary(2, value);
      w.end_struct();
    }
  }
  w.field_binary(6, options_.created_by);
  w.end_struct();
  return w.take();
}

void ParquetWriter::close() {
  if (closed_) return;
  for (const Column& c : columns_)
    if (c.group_values != group_rows_) throw std::runtime_error("parquet: the last row is incomplete");
  flush_row_group();
  std::string footer = encode_footer();
  append_le(footer, footer.size(), 4);
  footer += kMagic;
  put(footer);
  closed_ = true;
}

}  // namespace gcsnap::parquet
