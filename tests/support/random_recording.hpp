#pragma once
// A random recording model for tests: generate, write through Writer, compare with Recording.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gcsnap/gcsnap.hpp>

namespace gcsnap::test {

struct ModelGc {
  GcInfo info;
  std::vector<GenerationRange> bounds;
  RootTable roots;
  RangeTable ranges;
  ObjectTable objects;  // in writer input order; reference_offsets is CSR
  std::vector<uint32_t> ref_counts;
  std::vector<std::pair<uint32_t, std::pair<uint64_t, std::pair<std::string, std::string>>>> types;
  std::vector<std::pair<uint64_t, std::string>> methods;
  DropCounts drops;
};

struct ModelOptions {
  size_t max_objects = 200;
  size_t max_roots = 20;
  bool unaligned = false;
  bool extreme = false;  // max uint64 ids, lengths
  /// Walk order as a regions heap gives it: address-sorted runs over disjoint intervals, the
  /// runs in shuffled order (the writer's run-ordering path); otherwise mostly sorted with
  /// swapped neighbours (its general sort).
  bool region_runs = false;
};

/// Generate GCs numbered 1..n with increasing type ids.
std::vector<ModelGc> make_random_gcs(uint64_t seed, size_t n, const ModelOptions& opt = {});

/// Write one GC of a model (begin_gc .. end_gc, each column in two batches).
Status write_gc(Writer& writer, const ModelGc& gc);

/// Write MODEL to PATH; return the writer's close() status. With keep_open, flush instead and
/// hand the still-open writer to the caller (what a crashed writer leaves is then on disk).
Status write_model(const std::string& path, const std::vector<ModelGc>& model, const WriterOptions& options,
                   std::unique_ptr<Writer>* keep_open = nullptr);

/// Compare a Recording against MODEL; return "" when equal, else the first difference.
/// With allow_read_errors, a read_* that fails is accepted, but one that succeeds must match.
std::string compare_with_model(const Recording& rec, const std::vector<ModelGc>& model, size_t gc_count,
                               bool allow_read_errors = false);

std::vector<std::byte> read_file_bytes(const std::string& path);

}  // namespace gcsnap::test
