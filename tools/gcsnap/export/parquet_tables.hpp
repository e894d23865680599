#pragma once
// The tables of `gcsnap export --to parquet` (docs/fleet.md "Tables"): one Parquet file per
// table and recording, written row by row as the recording's GCs are read.

#include <memory>
#include <string>
#include <vector>

#include "loading/heap_load.hpp"
#include "export/object_lineage.hpp"
#include "export/parquet/parquet_writer.hpp"
#include "gcsnap/leak_suspects.hpp"
#include "gcsnap/reader.hpp"
#include "output/output_file.hpp"

namespace gcsnap::cli {

/// The schema version written in every file's footer (key "gcsnap.schema_version"). A change
/// that removes, renames or retypes a column bumps it; docs/fleet.md lists the columns.
inline constexpr int kParquetSchemaVersion = 1;

/// The names of the tables, as in the `table=` directory.
inline constexpr const char* kParquetTables[] = {"gcs",   "objects",  "references",   "roots",
                                                  "types", "suspects", "alloc_samples"};

/// Positions in kParquetTables.
enum ParquetTable : size_t {
  kTableGcs = 0,
  kTableObjects = 1,
  kTableReferences = 2,
  kTableRoots = 3,
  kTableTypes = 4,
  kTableSuspects = 5,
  kTableAllocSamples = 6,
};

/// One table's file: the output file (renamed into place by finish()) and its writer.
struct ParquetTableFile {
  std::unique_ptr<OutputFile> out;
  std::unique_ptr<parquet::ParquetWriter> writer;
};

/// The files of one recording's export, all open at once; nothing appears under the final
/// names until finish().
class RecordingTables {
 public:
  /// Open the files: PATHS[i] for kParquetTables[i] (none for an empty path: the table is
  /// not written and its add_* calls do nothing).
  RecordingTables(const std::vector<std::string>& paths, const parquet::WriterOptions& options);
  /// Add GC I of REC to the gcs table.
  void add_gc(const std::string& file, const Recording& rec, size_t i);
  /// Add a walked GC's objects (named across walks by LINEAGE, given this walk), references,
  /// roots and types.
  void add_heap(LoadedHeap& heap, const ObjectLineage& lineage);
  /// Add a walked GC's tables from its analysis index, piece by piece: HEAP was opened from
  /// that index with its histogram, names, roots and statics (HeapColumns).
  void add_indexed_heap(const std::string& file, GcHeap& heap, int64_t gc, const ObjectLineage& lineage);
  /// Add the leak suspects of the recording (as `gcsnap leaks` finds them): one row per
  /// suspect and walk.
  void add_suspects(const LeakReport& report);
  /// Add FILE's allocation samples (format-spec.md §6.18), each followed to GC position
  /// WALK_POS: one row per sample (parquet_alloc_samples.cpp).
  void add_alloc_samples(const std::string& file, const Recording& rec, size_t walk_pos);
  /// Whether table T (an index into kParquetTables) is written.
  bool has_table(size_t table) const;
  /// Close every file and rename it into place. Returns the rows written per table.
  std::vector<uint64_t> finish();

 private:
  void add_objects(LoadedHeap& heap, const DominatorTree& dom, const ObjectLineage& lineage);
  void add_references(const LoadedHeap& heap);
  void add_roots(const GcHeap& heap, int64_t gc);
  void add_types(const std::string& file, GcHeap& heap, int64_t gc);

  std::vector<ParquetTableFile> files_;  // in kParquetTables order
};

}  // namespace gcsnap::cli
