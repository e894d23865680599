#pragma once
// `gcsnap export FILE... --to parquet -o DIR`: every GC of every recording as Parquet tables in
// a hive layout (docs/fleet.md).

#include <cstdint>
#include <string>
#include <vector>

namespace gcsnap::cli {

struct ParquetExportOptions {
  std::vector<std::string> files;
  std::string dir;
  std::string host;     ///< the host= value (default "unknown")
  std::string process;  ///< the process= value for every file (default: from each file name)
  uint64_t row_group_rows = 1u << 20;
  std::vector<std::string> tables;  ///< the tables to write (empty: all of kParquetTables)
  /// Decode every walk whole and read no analysis index (else the objects and references
  /// tables of a walk with a valid index are read from it piece by piece).
  bool no_cache = false;
};

/// Verify every recording (a file that fails exports nothing), then write its tables under
/// DIR/table=T/host=H/process=P/recording=R/part-0.parquet. Throws CliError.
void run_parquet_export(const ParquetExportOptions& options);

/// The process= value of a recording file: its stem without a leading "gcsnap-", up to the
/// first "-DIGITS" that ends it or is followed by '-' (NAME-PID), else all of it; characters other than letters, digits, '.', '_' and '-' become '_'.
std::string process_key_of(const std::string& file);
/// The recording= value: the file's stem, with the same replacements.
std::string recording_key_of(const std::string& file);

}  // namespace gcsnap::cli
