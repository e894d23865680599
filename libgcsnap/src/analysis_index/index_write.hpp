#pragma once
// Writing an analysis index file (format-spec.md §12.2-12.3) in pieces: each array goes from
// the analysis' memory straight to its placed offset with pwrite (no staging copy), hashed as
// it goes, so that the build can write each array on a second thread while it computes the
// next ones (index_build_file.cpp); or the same bytes to memory (IndexFile::in_memory).
// Internal to the library.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gcsnap/analysis_index.hpp"
#include "analysis_index/index_layout.hpp"
#include "platform/file_io.hpp"

namespace gcsnap::detail {

using IndexBytes = std::span<const unsigned char>;

template <typename T>
IndexBytes index_bytes(std::span<const T> s) noexcept {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size_bytes()};
}

/// Arrays 10, 12 and 16 of format-spec.md §12.3 as their records.
std::vector<unsigned char> encode_roots(std::span<const GraphRoot> roots);
std::vector<unsigned char> encode_dependent_edges(std::span<const std::pair<NodeIndex, NodeIndex>> edges);
std::vector<unsigned char> encode_type_stats(std::span<const TypeStats> types);

/// The counts of an index that the graph gives (all but the preorder and the histogram, which
/// only the arrays after the graph's depend on: format-spec.md §12.3 order).
index_layout::Counts graph_counts(const HeapGraph& graph, bool has_dependent_handles, bool has_slots);

/// The header of format-spec.md §12.2 for IX with counts C, its checksums left zero
/// (IndexFile::finish adds them).
std::array<unsigned char, index_layout::kHeaderSize> index_header(const AnalysisIndex& ix, const IndexIdentity& id,
                                                                  const index_layout::Counts& c);

/// An index file being written: a temporary file next to its path, arrays coded and appended
/// in the order of format-spec.md §12.3 (one thread at a time), then the header, the directory
/// and the rename (§12.1: a reader sees a whole index or none). Destroyed unfinished, it
/// removes the temporary file. Or the same bytes in memory (in_memory), for a build whose
/// index is not saved.
class IndexFile {
 public:
  /// Create the temporary file for PATH. Errors: IoError.
  static Result<IndexFile> create(const std::string& path);
  /// An index written to memory: finish() leaves the file's bytes to take_bytes().
  static IndexFile in_memory() { return IndexFile(std::string(), std::string(), platform::kNoFile); }
  /// The bytes of a finished in_memory() index (empty before, or after a failed finish).
  std::vector<unsigned char> take_bytes() noexcept { return std::move(memory_); }
  IndexFile(IndexFile&& other) noexcept;
  IndexFile& operator=(IndexFile&&) = delete;
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;
  ~IndexFile();

  /// Code BYTES as array WHICH, append it and keep its checksum. BYTES must be as long as
  /// PLACE says, and WHICH the array after the last one written. After a failed write the
  /// others are skipped: finish() reports it.
  void write_array(size_t which, const index_layout::Placement& place, IndexBytes bytes);
  /// An array coded ahead of its turn (code_array), for a build that frees the array long
  /// before the arrays in front of it are written.
  struct CodedArray {
    std::vector<unsigned char> coded;
    uint64_t raw_bytes = 0;
    uint64_t hash = 0;
    int error = 0;  ///< errno of a failed coding, 0 when it went well
  };
  /// Code BYTES as array WHICH would be written: write_coded then appends exactly the bytes
  /// write_array would have. Safe on any thread (touches no file state).
  static CodedArray code_array(size_t which, const index_layout::Placement& place, IndexBytes bytes) noexcept;
  /// Decode ARRAY, coded by code_array for WHICH, into OUT (its raw bytes: a build that gave
  /// the array's memory back while it was not needed). False unless OUT gets exactly the bytes
  /// that were coded (their XXH3 checked). Throws std::bad_alloc.
  static bool decode_coded(size_t which, const index_layout::Placement& place, const CodedArray& array,
                           std::span<unsigned char> out);
  /// Append ARRAY, coded by code_array for WHICH, as write_array would have appended it.
  void write_coded(size_t which, const index_layout::Placement& place, const CodedArray& array);
  /// Decode array WHICH, written before (whole: a later write that failed leaves it so), back
  /// into OUT (its decoded bytes, as long as PLACE says), a frame at a time from the file (or
  /// memory): for a build that gave an array's memory back and needs it once more. False when
  /// it does not read back to exactly the bytes written (their XXH3 checked) or cannot be
  /// read. Throws std::bad_alloc.
  bool read_back(size_t which, const index_layout::Placement& place, std::span<unsigned char> out) const;
  /// Whether array WHICH was written whole, so that read_back can give it back. Not while
  /// another thread writes.
  bool written(size_t which) const noexcept { return which < next_; }
  /// Mark the file failed with ERROR (an errno value): finish() reports it.
  void fail(int error) noexcept {
    if (error_ == 0) error_ = error;
  }
  /// Write HEADER with the directory, the array checksums and its own checksum filled in,
  /// close and rename. Every array must have been written. Errors: IoError (the temporary file
  /// is removed).
  [[nodiscard]] Status finish(std::array<unsigned char, index_layout::kHeaderSize> header);

 private:
  IndexFile(std::string path, std::string tmp, platform::FileHandle fd) : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd) {}
  Status fail_and_remove(const char* detail, int error);
  bool in_memory_mode() const noexcept { return path_.empty(); }
  // Put N bytes at AT of the file (or of memory_). False with errno set when that fails.
  bool put_bytes(const unsigned char* p, size_t n, uint64_t at);
  // Read N bytes at AT of what was written, through READER (a read handle on the temporary
  // file; unused in memory). False when they cannot be read.
  bool get_bytes(platform::FileHandle reader, unsigned char* p, size_t n, uint64_t at) const;

  std::string path_;
  std::string tmp_;
  platform::FileHandle fd_ = platform::kNoFile;
  int error_ = 0;  // errno of the first failed write, 0 while all went well
  std::array<uint64_t, index_layout::kArrayCount> hashes_{};
  std::array<uint64_t, index_layout::kArrayCount> coded_{};  // the directory
  size_t next_ = 0;                                         // the array to write next
  uint64_t end_ = index_layout::kFirstArray;                // where it goes
  std::vector<unsigned char> memory_;                       // the bytes of an in_memory() index
};

/// Write arrays 1-12 of GRAPH (format-spec.md §12.3: node columns, both graphs, edge slots,
/// roots, unresolved roots, dependent edges), its reverse CSR given as bytes (a build writes it
/// before the graph has adopted it). Out of memory, it fails FILE.
void write_graph_arrays(IndexFile& file, const index_layout::Placement& place, const HeapGraph& graph,
                        std::span<const Generation> generations, const EdgeSlots& slots, IndexBytes reverse_offsets,
                        IndexBytes reverse_sources) noexcept;
/// Write arrays 1-6 (node columns and the forward CSR): the first half of write_graph_arrays.
void write_forward_arrays(IndexFile& file, const index_layout::Placement& place, const HeapGraph& graph,
                          std::span<const Generation> generations) noexcept;
/// Write arrays 7-12 (reverse CSR, edge slots, roots, unresolved roots, dependent edges): the
/// second half.
void write_reverse_arrays(IndexFile& file, const index_layout::Placement& place, const HeapGraph& graph,
                          const EdgeSlots& slots, IndexBytes reverse_offsets, IndexBytes reverse_sources) noexcept;
/// Write arrays 13-15 (preorder, immediate dominators, retained sizes).
void write_tree_arrays(IndexFile& file, const index_layout::Placement& place, const DominatorTree& tree);

}  // namespace gcsnap::detail
