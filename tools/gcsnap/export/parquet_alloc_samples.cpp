// The alloc_samples table of `gcsnap export --to parquet` (docs/fleet.md "Tables"): one row per
// allocation sample, followed to the recording's last heap walk.
#include <cmath>

#include "errors/cli_error.hpp"
#include "export/parquet_tables.hpp"
#include "gcsnap/alloc_join.hpp"

namespace gcsnap::cli {

namespace {

const char* heap_name(AllocHeap heap) {
  switch (heap) {
    case AllocHeap::Large: return "loh";
    case AllocHeap::Pinned: return "poh";
    default: return "soh";
  }
}

int64_t as_i64(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

void RecordingTables::add_alloc_samples(const std::string& file, const Recording& rec, size_t walk_pos) {
  if (!files_[kTableAllocSamples].writer) return;
  auto join = AllocJoin::load(rec, walk_pos);
  if (!join) fail_on(file, join.error());
  parquet::ParquetWriter& w = *files_[kTableAllocSamples].writer;
  const uint64_t walk_gc = rec.gcs()[walk_pos].info.gc_number;
  for (const FollowedSample& f : join->samples()) {
    const AllocSample& s = f.sample;
    w.add_int64(0, as_i64(rec.gcs()[f.block_pos].info.gc_number));
    w.add_int64(1, as_i64(s.address));
    w.add_int64(2, as_i64(walk_gc));
    w.add_int64(3, f.alive ? as_i64(f.address) : 0);  // the writer's columns are required: 0 = not alive
    w.add_bool(4, f.alive);
    w.add_int64(5, as_i64(f.died_gc));
    w.add_string(6, join->names().type_name(s.class_id));
    w.add_int64(7, as_i64(s.size));
    w.add_string(8, s.kind == AllocSampleKind::Tick ? "tick" : "sampled");
    w.add_string(9, heap_name(s.heap));
    w.add_int64(10, std::llround(estimated_bytes(s)));
    w.add_int64(11, std::llround(estimated_objects(s)));
    w.add_int64(12, s.stack_id);
    w.add_string(13, join->site(s));
    w.add_int64(14, as_i64(s.thread));
    w.add_int64(15, as_i64(s.time_ns / 1000));
    w.add_int32(16, static_cast<int32_t>(s.scale));
    w.end_row();
  }
}

}  // namespace gcsnap::cli
