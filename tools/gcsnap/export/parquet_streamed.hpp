#pragma once
// The objects and references tables of one walk read from the GC's analysis index piece by
// piece (gcsnap/heap_columns.hpp): what they hold at once is a batch of rows and the pieces in
// use, not the graph and the dominator tree of the heap (docs/fleet.md "Memory").

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "export/object_lineage.hpp"
#include "export/packed_addresses.hpp"
#include "export/parquet/parquet_writer.hpp"
#include "gcsnap/gc_heap.hpp"

namespace gcsnap::cli {

/// Give LINEAGE walk GC_POS of REC, its objects' addresses and generations read piece by piece
/// from the index HEAP came from (HeapColumns). Throws CliError naming FILE.
void add_index_lineage(const std::string& file, const GcHeap& heap, const Recording& rec, size_t gc_pos,
                       ObjectLineage& lineage);

/// Read every object's address from HEAP's index piece by piece, packed (about 2 bytes an
/// object), for the dominators' and targets' addresses: looking them up in the pieces instead
/// decodes every piece once per batch of rows, a cost that grows with the square of the heap.
/// Throws CliError naming FILE.
PackedAddresses read_index_addresses(const std::string& file, const GcHeap& heap);

/// Write the objects table's rows of walk GC from HEAP's index: the type names from
/// HEAP's names, the dominators' addresses from ADDRESSES (every object's), the identity from
/// LINEAGE (this walk's). Throws CliError naming FILE.
void write_index_objects(const std::string& file, const GcHeap& heap, int64_t gc, const PackedAddresses& addresses,
                         const ObjectLineage& lineage, parquet::ParquetWriter& w);

/// Write the references table's rows of walk GC from HEAP's index: the field names from
/// HEAP's names and statics; the targets' addresses from ADDRESSES when it holds every object's
/// (else from the index's pieces). Throws CliError naming FILE.
void write_index_references(const std::string& file, const GcHeap& heap, int64_t gc,
                            const PackedAddresses& addresses, parquet::ParquetWriter& w);

}  // namespace gcsnap::cli
