// The columns of each table (docs/fleet.md "Tables" is the reference; keep them in step).
#include "export/parquet_tables.hpp"

#include <stdexcept>
#include <utility>

#include "loading/leak_load.hpp"
#include "export/parquet_streamed.hpp"
#include "errors/cli_error.hpp"

namespace gcsnap::cli {

namespace {

using parquet::ColumnSpec;
using parquet::ColumnType;

std::vector<ColumnSpec> table_columns(size_t table) {
  const ColumnType i32 = ColumnType::Int32, i64 = ColumnType::Int64, str = ColumnType::String,
                   b = ColumnType::Boolean, ts = ColumnType::TimestampMicros;
  switch (table) {
    case kTableGcs:
      return {{"gc", i64},        {"start_time", ts},  {"end_time", ts},     {"pause_ns", i64},
              {"generation", i32}, {"reason", str},     {"compacted", b},     {"trigger", str},
              {"walked", b},       {"objects", i64},    {"references", i64},  {"roots", i64},
              {"gen0_bytes", i64}, {"gen1_bytes", i64}, {"gen2_bytes", i64},  {"loh_bytes", i64},
              {"poh_bytes", i64}};
    case kTableObjects:
      return {{"gc", i64},       {"address", i64}, {"type", str},           {"size", i64},
              {"generation", str}, {"reachable", b}, {"retained_bytes", i64}, {"dominator", i64},
              {"first_gc", i64},   {"first_address", i64}};
    case kTableReferences:
      return {{"gc", i64}, {"from", i64}, {"to", i64}, {"field", str}, {"kind", str}};
    case kTableRoots:
      return {{"gc", i64},    {"kind", str},    {"flags", i32}, {"weak", b},
              {"pinning", b}, {"root_id", i64}, {"name", str},  {"object", i64}};
    case kTableSuspects:
      return {{"rank", i32},           {"type", str},          {"shape", str},
              {"gc", i64},             {"count", i64},         {"bytes", i64},
              {"retained_bytes", i64}, {"born_here", i64},     {"accumulated_count", i64},
              {"accumulated_bytes", i64}, {"retained_growth", i64}, {"count_growth", i64},
              {"by_identity", b}};
    case kTableAllocSamples:
      return {{"gc", i64},          {"address", i64},    {"followed_gc", i64}, {"followed_address", i64},
              {"alive", b},         {"died_gc", i64},    {"type", str},        {"size", i64},
              {"kind", str},        {"heap", str},       {"est_bytes", i64},   {"est_objects", i64},
              {"stack_id", i64},    {"site", str},       {"thread", i64},      {"time", ts},
              {"scale", i32}};
    default:
      return {{"gc", i64},      {"type", str},           {"count", i64},
              {"shallow_bytes", i64}, {"retained_bytes", i64}, {"unreachable_count", i64}};
  }
}

std::string_view trigger_name(SnapshotTrigger t) {
  switch (t) {
    case SnapshotTrigger::Policy: return "policy";
    case SnapshotTrigger::OnDemand: return "on-demand";
    case SnapshotTrigger::Always: return "always";
    case SnapshotTrigger::None: break;
  }
  return "none";
}

int64_t as_i64(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

RecordingTables::RecordingTables(const std::vector<std::string>& paths, const parquet::WriterOptions& options) {
  for (size_t t = 0; t < paths.size(); ++t) {
    ParquetTableFile f;
    if (paths[t].empty()) {  // a table not asked for
      files_.push_back(std::move(f));
      continue;
    }
    f.out = std::make_unique<OutputFile>(paths[t]);
    OutputFile* out = f.out.get();
    f.writer = std::make_unique<parquet::ParquetWriter>(table_columns(t),
                                                        [out](std::string_view bytes) { out->write(bytes); }, options);
    files_.push_back(std::move(f));
  }
}

void RecordingTables::add_gc(const std::string& file, const Recording& rec, size_t i) {
  if (!files_[kTableGcs].writer) return;
  const GcEntry& e = rec.gcs()[i];
  uint64_t gen_bytes[5] = {};
  auto bounds = rec.read_generation_bounds(i);
  if (!bounds) fail_on(file, bounds.error());
  for (const GenerationRange& r : *bounds)
    if (static_cast<size_t>(r.generation) < 5) gen_bytes[static_cast<size_t>(r.generation)] += r.length;
  parquet::ParquetWriter& w = *files_[kTableGcs].writer;
  w.add_int64(0, as_i64(e.info.gc_number));
  w.add_int64(1, as_i64(e.info.start_time_ns / 1000));
  w.add_int64(2, as_i64(e.info.end_time_ns / 1000));
  w.add_int64(3, e.info.end_time_ns >= e.info.start_time_ns ? as_i64(e.info.end_time_ns - e.info.start_time_ns) : 0);
  w.add_int32(4, e.info.condemned_generation());
  w.add_string(5, e.info.reason == GcReason::Induced ? "induced" : "other");
  w.add_bool(6, e.info.compacted);
  w.add_string(7, trigger_name(e.info.trigger));
  w.add_bool(8, e.has_heap_walk());
  w.add_int64(9, as_i64(e.object_count));
  w.add_int64(10, as_i64(e.reference_count));
  w.add_int64(11, as_i64(e.root_count));
  for (size_t g = 0; g < 5; ++g) w.add_int64(12 + g, as_i64(gen_bytes[g]));
  w.end_row();
}

void RecordingTables::add_heap(LoadedHeap& heap, const ObjectLineage& lineage) {
  if (files_[kTableObjects].writer) add_objects(heap, heap.dominators(false), lineage);
  add_references(heap);
  add_roots(heap, as_i64(heap.sel.number()));
  add_types(heap.sel.file, heap, as_i64(heap.sel.number()));
}

void RecordingTables::add_indexed_heap(const std::string& file, GcHeap& heap, int64_t gc,
                                       const ObjectLineage& lineage) {
  PackedAddresses addresses;
  if (files_[kTableObjects].writer || files_[kTableReferences].writer) addresses = read_index_addresses(file, heap);
  if (files_[kTableObjects].writer)
    write_index_objects(file, heap, gc, addresses, lineage, *files_[kTableObjects].writer);
  if (files_[kTableReferences].writer)
    write_index_references(file, heap, gc, addresses, *files_[kTableReferences].writer);
  add_roots(heap, gc);
  add_types(file, heap, gc);
}

void RecordingTables::add_objects(LoadedHeap& heap, const DominatorTree& dom, const ObjectLineage& lineage) {
  parquet::ParquetWriter& w = *files_[kTableObjects].writer;
  const int64_t gc = as_i64(heap.sel.number());
  const HeapGraph& g = heap.graph;
  ObjectLineage::Origins origins = lineage.origins();
  for (NodeIndex v = 0; v < g.node_count(); ++v) {
    const NodeIndex d = dom.immediate_dominator(v);
    w.add_int64(0, gc);
    w.add_int64(1, as_i64(g.address(v)));
    w.add_string(2, heap.type_name(v));
    w.add_int64(3, as_i64(g.object_size(v)));
    w.add_string(4, generation_name(heap.generation(v)));
    w.add_bool(5, dom.is_reachable(v));
    w.add_int64(6, as_i64(dom.is_reachable(v) ? dom.retained_size(v) : 0));
    // 0: held by roots directly (the virtual root dominates it) or not reachable.
    w.add_int64(7, d == kNoNode || d == kVirtualRoot ? 0 : as_i64(g.address(d)));
    const ObjectLineage::Origin o = origins.next();
    w.add_int64(8, as_i64(o.first_gc));
    w.add_int64(9, as_i64(o.first_address));
    w.end_row();
  }
}

void RecordingTables::add_references(const LoadedHeap& heap) {
  if (!files_[kTableReferences].writer) return;
  parquet::ParquetWriter& w = *files_[kTableReferences].writer;
  const int64_t gc = as_i64(heap.sel.number());
  const HeapGraph& g = heap.graph;
  const EdgeNamer namer = heap.edge_namer();
  for (NodeIndex v = 0; v < g.node_count(); ++v) {
    const auto succ = g.successors(v);
    for (size_t j = 0; j < succ.size(); ++j) {
      const bool dependent = g.edge_kind(v, succ[j]) == EdgeKind::DependentHandle;
      w.add_int64(0, gc);
      w.add_int64(1, as_i64(g.address(v)));
      w.add_int64(2, as_i64(g.address(succ[j])));
      w.add_string(3, dependent ? std::string() : namer.name_successor(v, j).text);
      w.add_string(4, dependent ? "dependent-handle" : "reference");
      w.end_row();
    }
  }
}

void RecordingTables::add_roots(const GcHeap& heap, int64_t gc) {
  if (!files_[kTableRoots].writer) return;
  parquet::ParquetWriter& w = *files_[kTableRoots].writer;
  const RootTable& r = heap.roots;
  for (size_t i = 0; i < r.size(); ++i) {
    const MethodRecord* method = r.kinds[i] == RootKind::Stack ? heap.names.find_method(r.root_ids[i]) : nullptr;
    w.add_int64(0, gc);
    w.add_string(1, root_kind_name(r.kinds[i]));
    w.add_int32(2, r.flags[i]);
    w.add_bool(3, (r.flags[i] & root_flags::kWeakRef) != 0);
    w.add_bool(4, (r.flags[i] & root_flags::kPinning) != 0);
    w.add_int64(5, as_i64(r.root_ids[i]));
    w.add_string(6, method ? method->name : std::string_view());
    w.add_int64(7, as_i64(r.object_ids[i]));
    w.end_row();
  }
}

void RecordingTables::add_types(const std::string& file, GcHeap& heap, int64_t gc) {
  if (!files_[kTableTypes].writer) return;
  parquet::ParquetWriter& w = *files_[kTableTypes].writer;
  for (const TypeStats& t : value_or_fail(heap.find_type_histogram(false, TypeHistogramOptions{}), file)) {
    w.add_int64(0, gc);
    w.add_string(1, heap.names.type_name(t.type_id));
    w.add_int64(2, as_i64(t.count));
    w.add_int64(3, as_i64(t.shallow_bytes));
    w.add_int64(4, as_i64(t.retained_bytes));
    w.add_int64(5, as_i64(t.unreachable_count));
    w.end_row();
  }
}

void RecordingTables::add_suspects(const LeakReport& report) {
  if (!files_[kTableSuspects].writer) return;
  parquet::ParquetWriter& w = *files_[kTableSuspects].writer;
  for (size_t k = 0; k < report.suspects.size(); ++k) {
    const LeakSuspect& s = report.suspects[k];
    const std::string shape = s.shapes.empty() ? std::string() : describe_shape(s.shapes.front());
    for (size_t i = 0; i < s.series.size() && i < report.walks.size(); ++i) {
      const LeakPoint& p = s.series[i];
      w.add_int32(0, static_cast<int32_t>(k + 1));
      w.add_string(1, s.type);
      w.add_string(2, shape);
      w.add_int64(3, as_i64(report.walks[i].gc_number));
      w.add_int64(4, as_i64(p.count));
      w.add_int64(5, as_i64(p.bytes));
      w.add_int64(6, as_i64(p.retained_bytes));
      w.add_int64(7, as_i64(p.born_here));
      w.add_int64(8, as_i64(s.accumulated_count));
      w.add_int64(9, as_i64(s.accumulated_bytes));
      w.add_int64(10, s.retained_growth);
      w.add_int64(11, s.count_growth);
      w.add_bool(12, s.by_identity);
      w.end_row();
    }
  }
}

bool RecordingTables::has_table(size_t table) const { return files_.at(table).writer != nullptr; }

std::vector<uint64_t> RecordingTables::finish() {
  std::vector<uint64_t> rows;
  for (ParquetTableFile& f : files_) {
    if (!f.writer) {
      rows.push_back(0);
      continue;
    }
    f.writer->close();
    rows.push_back(f.writer->rows());
    f.out->commit();
  }
  return rows;
}

}  // namespace gcsnap::cli
