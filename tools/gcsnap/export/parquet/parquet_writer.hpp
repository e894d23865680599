#pragma once
// A small Parquet writer: the subset gcsnap's exports need (docs/fleet.md "Parquet files").
// Flat schemas of required columns (INT32, INT64, BOOLEAN, UTF-8 strings, UTC timestamps in
// microseconds), PLAIN encoding (strings: a dictionary per row group and RLE_DICTIONARY
// indices), data pages (v1) compressed with zstd, row groups of a bounded number of rows, and
// the footer's FileMetaData in the Thrift compact protocol.
// Memory: one row group's compressed pages, one uncompressed page per column and the string
// columns' dictionaries (a full dictionary ends the row group early).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gcsnap::parquet {

enum class ColumnType : uint8_t { Int32, Int64, Boolean, String, TimestampMicros };

struct ColumnSpec {
  std::string name;
  ColumnType type = ColumnType::Int64;
};

struct WriterOptions {
  uint64_t row_group_rows = 1u << 20;  ///< rows per row group (the memory bound)
  size_t page_bytes = 1u << 20;        ///< an uncompressed page is cut at about this size
  size_t dictionary_bytes = 8u << 20;  ///< a string dictionary this large ends the row group
  int zstd_level = 1;
  std::string created_by = "gcsnap";
  std::vector<std::pair<std::string, std::string>> key_values;  ///< the footer's key_value_metadata
};

/// Receives the file's bytes in order.
using ByteSink = std::function<void(std::string_view)>;

/// Write one Parquet file to a sink, row by row: set every column of a row (in any order) with
/// the add_* calls, then end_row(); close() writes the last row group and the footer.
/// Throws std::runtime_error when a row is incomplete or compression fails.
class ParquetWriter {
 public:
  ParquetWriter(std::vector<ColumnSpec> columns, ByteSink sink, WriterOptions options = {});
  ~ParquetWriter();
  ParquetWriter(const ParquetWriter&) = delete;
  ParquetWriter& operator=(const ParquetWriter&) = delete;

  void add_int32(size_t column, int32_t value);
  void add_int64(size_t column, int64_t value);
  void add_bool(size_t column, bool value);
  void add_string(size_t column, std::string_view value);
  void end_row();
  /// Flush the last row group and write the footer. Call once; nothing may be added after.
  void close();

  uint64_t rows() const noexcept { return rows_; }
  uint64_t bytes_written() const noexcept { return offset_; }

 private:
  struct Column;
  struct ChunkMeta;
  void put(std::string_view bytes);
  std::string compress(const std::string& bytes);
  void flush_page(Column& column);
  std::string dictionary_page(Column& column, uint64_t& uncompressed);
  void flush_row_group();
  std::string encode_footer() const;

  std::vector<Column> columns_;
  ByteSink sink_;
  WriterOptions options_;
  void* zstd_ = nullptr;  // ZSTD_CCtx, reused for every page
  uint64_t offset_ = 0;
  uint64_t rows_ = 0;
  uint64_t group_rows_ = 0;
  std::vector<std::vector<ChunkMeta>> row_groups_;
  std::vector<uint64_t> row_group_rows_;
  bool closed_ = false;
};

}  // namespace gcsnap::parquet
