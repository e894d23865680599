#include "random_recording.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <numeric>
#include <sstream>

#include "gcsnap/enum_names.hpp"

namespace gcsnap::test {
namespace {

uint64_t pick_address(std::mt19937_64& rng, uint64_t& cursor, bool unaligned) {
  static const uint64_t kSizes[] = {24, 24, 32, 40, 48, 64, 128, 1024, 85000};
  cursor += kSizes[rng() % 9];
  if (rng() % 50 == 0) cursor += (rng() % 64) << 22;  // jump to another region
  return unaligned && rng() % 3 == 0 ? cursor + 1 + rng() % 7 : cursor;
}

void make_objects(std::mt19937_64& rng, ModelGc& gc, const ModelOptions& opt, uint32_t max_type) {
  size_t n = opt.max_objects ? rng() % (opt.max_objects + 1) : 0;
  uint64_t cursor = 0x7f0000000000ull + (rng() % 1024) * 8;
  std::vector<uint64_t> addrs;
  for (size_t i = 0; i < n; ++i) addrs.push_back(pick_address(rng, cursor, opt.unaligned));
  if (opt.extreme && n > 0) addrs.back() = UINT64_MAX;
  if (opt.extreme && n > 1) addrs.front() = 0;
  if (opt.region_runs) {
    std::sort(addrs.begin(), addrs.end());
    std::vector<std::vector<uint64_t>> runs;
    for (size_t i = 0; i < n; ++i) {
      if (runs.empty() || rng() % 16 == 0) runs.emplace_back();
      runs.back().push_back(addrs[i]);
    }
    std::shuffle(runs.begin(), runs.end(), rng);
    addrs.clear();
    for (const auto& run : runs) addrs.insert(addrs.end(), run.begin(), run.end());
  } else {
    // Heap-walk order: mostly sorted, with some swapped neighbours and moved runs.
    for (size_t i = 0; i + 1 < n; ++i)
      if (rng() % 7 == 0) std::swap(addrs[i], addrs[i + 1]);
    if (n > 10 && rng() % 2) std::rotate(addrs.begin(), addrs.begin() + static_cast<ptrdiff_t>(n / 3), addrs.end());
  }
  auto& o = gc.objects;
  o.reference_offsets.push_back(0);
  for (size_t i = 0; i < n; ++i) {
    o.addresses.push_back(addrs[i]);
    o.type_ids.push_back(max_type ? static_cast<uint32_t>(rng() % (max_type + 1)) : 0);
    o.sizes.push_back(opt.extreme && rng() % 5 == 0 ? UINT64_MAX : 24 + (rng() % 20) * 8 + (opt.unaligned ? rng() % 3 : 0));
    o.generations.push_back(static_cast<Generation>(rng() % 6));
    uint32_t refs = static_cast<uint32_t>(rng() % 6);
    gc.ref_counts.push_back(refs);
    for (uint32_t r = 0; r < refs; ++r) {
      uint64_t t = rng() % 4 == 0 ? addrs[rng() % n] : (rng() % 10 == 0 ? 0 : addrs[(i + 1 + rng() % 4) % n]);
      if (opt.unaligned && rng() % 10 == 0) t += 3;
      if (opt.extreme && rng() % 10 == 0) t = UINT64_MAX - rng() % 3;
      o.reference_targets.push_back(t);
    }
    o.reference_offsets.push_back(o.reference_targets.size());
  }
}

}  // namespace

std::vector<ModelGc> make_random_gcs(uint64_t seed, size_t n, const ModelOptions& opt) {
  std::mt19937_64 rng(seed);
  std::vector<ModelGc> out;
  uint32_t next_type = 1;
  uint64_t next_method = 0x7ff000001000ull;
  uint64_t gc_number = 0;
  for (size_t g = 0; g < n; ++g) {
    ModelGc gc;
    gc_number += 1 + rng() % 3;
    gc.info.gc_number = opt.extreme && g + 1 == n ? UINT64_MAX : gc_number;
    gc.info.generations_collected = static_cast<uint8_t>(rng() % 32);
    gc.info.reason = static_cast<GcReason>(rng() % 2);
    gc.info.compacted = rng() % 2;
    gc.info.trigger = static_cast<SnapshotTrigger>(rng() % 4);
    gc.info.start_time_ns = rng();
    gc.info.end_time_ns = opt.extreme ? UINT64_MAX : gc.info.start_time_ns + rng() % 1000000;
    gc.info.runtime_gc_count = static_cast<uint32_t>(rng());
    for (size_t i = 0, k = rng() % 8; i < k; ++i)
      gc.bounds.push_back({static_cast<Generation>(rng() % 6), (rng() % (1ull << 40)) * 8, rng() % 4096 * 8,
                           opt.extreme ? UINT64_MAX : rng() % 8192 * 8});
    size_t roots = opt.max_roots ? rng() % (opt.max_roots + 1) : 0;
    for (size_t i = 0; i < roots; ++i) {
      gc.roots.object_ids.push_back(rng() % 5 == 0 ? 0 : (opt.extreme ? UINT64_MAX - rng() % 2 : 0x7f0000000000ull + rng() % 100000 * 8 + (opt.unaligned ? rng() % 8 : 0)));
      gc.roots.kinds.push_back(static_cast<RootKind>(rng() % 4));
      gc.roots.flags.push_back(static_cast<uint8_t>(rng() % 16));
      gc.roots.root_ids.push_back(opt.extreme ? UINT64_MAX : rng() % 3 == 0 ? rng() : i);
    }
    for (size_t i = 0, k = rng() % 10; i < k; ++i) {
      uint64_t s = rng() % (1ull << 44);
      gc.ranges.surviving_starts.push_back(opt.extreme && i == 0 ? 0 : s);
      gc.ranges.surviving_lengths.push_back(opt.extreme && i == 0 ? UINT64_MAX : rng() % 100000);
    }
    for (size_t i = 0, k = gc.info.compacted ? rng() % 10 : 0; i < k; ++i) {
      gc.ranges.moved_old_starts.push_back(rng() % (1ull << 44));
      gc.ranges.moved_new_starts.push_back(rng() % (1ull << 44));
      gc.ranges.moved_lengths.push_back(rng() % 100000);
    }
    for (size_t i = 0, k = rng() % 5; i < k; ++i) {
      std::string name = "Ns" + std::to_string(rng() % 10) + ".Type" + std::to_string(next_type) + "<T>[]";
      std::string module = rng() % 4 ? "App.dll" : "";
      gc.types.push_back({next_type++, {opt.extreme ? UINT64_MAX : rng(), {name, module}}});
    }
    for (size_t i = 0, k = rng() % 3; i < k; ++i)
      gc.methods.push_back({next_method += 16 + rng() % 64, "Ns.Type.Method" + std::to_string(rng() % 100)});
    if (gc.info.trigger != SnapshotTrigger::None) make_objects(rng, gc, opt, next_type - 1);
    else gc.objects.reference_offsets.push_back(0);
    if (rng() % 4 == 0) gc.drops = {rng() % 10, rng() % 10, opt.extreme ? UINT64_MAX : rng() % 10, rng() % 10,
                                    static_cast<uint32_t>(rng() % 16)};
    out.push_back(std::move(gc));
  }
  return out;
}

Status write_gc(Writer& writer, const ModelGc& gc) {
  GcInfo begin = gc.info;
  begin.compacted = false;
  begin.end_time_ns = 0;
  GCSNAP_RETURN_IF_ERROR(writer.begin_gc(begin));
  // Feed in two batches each, to exercise batching across chunk boundaries.
  GCSNAP_RETURN_IF_ERROR(writer.add_generation_bounds(gc.bounds));
  auto& r = gc.roots;
  size_t h = r.size() / 2;
  std::vector<uint8_t> kinds;
  for (auto k : r.kinds) kinds.push_back(static_cast<uint8_t>(k));
  GCSNAP_RETURN_IF_ERROR(writer.add_roots({r.object_ids.data(), h}, {kinds.data(), h}, {r.flags.data(), h},
                                          {r.root_ids.data(), h}));
  GCSNAP_RETURN_IF_ERROR(writer.add_roots(std::span(r.object_ids).subspan(h), std::span(kinds).subspan(h),
                                          std::span(r.flags).subspan(h), std::span(r.root_ids).subspan(h)));
  GCSNAP_RETURN_IF_ERROR(writer.add_surviving_ranges(gc.ranges.surviving_starts, gc.ranges.surviving_lengths));
  GCSNAP_RETURN_IF_ERROR(
      writer.add_moved_ranges(gc.ranges.moved_old_starts, gc.ranges.moved_new_starts, gc.ranges.moved_lengths));
  std::vector<TypeRecord> types;
  for (const auto& t : gc.types) types.push_back({t.first, t.second.first, t.second.second.first, t.second.second.second});
  GCSNAP_RETURN_IF_ERROR(writer.add_types(types));
  std::vector<MethodRecord> methods;
  for (const auto& m : gc.methods) methods.push_back({m.first, m.second});
  GCSNAP_RETURN_IF_ERROR(writer.add_methods(methods));
  const auto& o = gc.objects;
  std::vector<uint8_t> gens;
  for (auto g : o.generations) gens.push_back(static_cast<uint8_t>(g));
  size_t oh = o.size() / 2;
  size_t rh = o.size() ? o.reference_offsets[oh] : 0;
  GCSNAP_RETURN_IF_ERROR(writer.add_objects({o.addresses.data(), oh}, {o.type_ids.data(), oh}, {o.sizes.data(), oh},
                                            {gens.data(), oh}, {gc.ref_counts.data(), oh},
                                            {o.reference_targets.data(), rh}));
  GCSNAP_RETURN_IF_ERROR(writer.add_objects(
      std::span(o.addresses).subspan(oh), std::span(o.type_ids).subspan(oh), std::span(o.sizes).subspan(oh),
      std::span(gens).subspan(oh), std::span(gc.ref_counts).subspan(oh), std::span(o.reference_targets).subspan(rh)));
  if (gc.drops.any()) GCSNAP_RETURN_IF_ERROR(writer.add_drops(gc.drops));
  GCSNAP_RETURN_IF_ERROR(writer.end_gc(gc.info));
  return {};
}

Status write_model(const std::string& path, const std::vector<ModelGc>& model, const WriterOptions& options,
                   std::unique_ptr<Writer>* keep_open) {
  auto w = Writer::create(path, options);
  if (!w) return w.error();
  Writer& writer = **w;
  for (const auto& gc : model) GCSNAP_RETURN_IF_ERROR(write_gc(writer, gc));
  if (keep_open) {
    Status s = writer.flush();
    *keep_open = std::move(*w);
    return s;
  }
  return writer.close();
}

namespace {

ObjectTable sorted_objects(const ObjectTable& in) {
  std::vector<size_t> order(in.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return in.addresses[a] < in.addresses[b]; });
  ObjectTable out;
  out.reference_offsets.push_back(0);
  for (size_t k : order) {
    out.addresses.push_back(in.addresses[k]);
    out.type_ids.push_back(in.type_ids[k]);
    out.sizes.push_back(in.sizes[k]);
    out.generations.push_back(in.generations[k]);
    for (uint64_t r = in.reference_offsets[k]; r < in.reference_offsets[k + 1]; ++r)
      out.reference_targets.push_back(in.reference_targets[r]);
    out.reference_offsets.push_back(out.reference_targets.size());
  }
  return out;
}

#define DIFF_IF(cond, what)                            \
  do {                                                 \
    if (cond) {                                        \
      std::ostringstream s_;                           \
      s_ << "gc " << i << ": " << what;                \
      return s_.str();                                 \
    }                                                  \
  } while (0)

}  // namespace

std::string compare_with_model(const Recording& rec, const std::vector<ModelGc>& model, size_t gc_count,
                               bool allow_read_errors) {
  auto gcs = rec.gcs();
  size_t i = 0;
  DIFF_IF(gcs.size() != gc_count, "gc count " << gcs.size() << " != " << gc_count);
  std::vector<std::pair<uint32_t, std::string>> all_types;
  for (i = 0; i < gc_count; ++i) {
    const ModelGc& m = model[i];
    const GcEntry& e = gcs[i];
    DIFF_IF(e.info.gc_number != m.info.gc_number || e.info.start_time_ns != m.info.start_time_ns ||
                e.info.end_time_ns != m.info.end_time_ns || e.info.compacted != m.info.compacted ||
                e.info.trigger != m.info.trigger || e.info.reason != m.info.reason ||
                e.info.generations_collected != m.info.generations_collected ||
                e.info.runtime_gc_count != m.info.runtime_gc_count,
            "info differs");
    DIFF_IF(e.root_count != m.roots.size() || e.object_count != m.objects.size() ||
                e.reference_count != m.objects.reference_targets.size() || e.new_type_count != m.types.size() ||
                e.new_method_count != m.methods.size() || e.generation_range_count != m.bounds.size() ||
                e.surviving_range_count != m.ranges.surviving_starts.size() ||
                e.moved_range_count != m.ranges.moved_old_starts.size(),
            "counts differ");
    DIFF_IF(e.drops.roots != m.drops.roots || e.drops.objects != m.drops.objects ||
                e.drops.reasons != m.drops.reasons || e.drops.references != m.drops.references ||
                e.drops.ranges != m.drops.ranges,
            "drops differ");
    auto bounds = rec.read_generation_bounds(i);
    DIFF_IF(!bounds && !allow_read_errors, "read_generation_bounds: " << error_code_name(bounds.error().code));
    DIFF_IF(bounds && bounds->size() != m.bounds.size(), "bounds size");
    for (size_t k = 0; bounds && k < m.bounds.size(); ++k)
      DIFF_IF((*bounds)[k].start != m.bounds[k].start || (*bounds)[k].length != m.bounds[k].length ||
                  (*bounds)[k].reserved_length != m.bounds[k].reserved_length ||
                  (*bounds)[k].generation != m.bounds[k].generation,
              "bound " << k);
    auto roots = rec.read_roots(i);
    DIFF_IF(!roots && !allow_read_errors, "read_roots: " << error_code_name(roots.error().code));
    DIFF_IF(roots && (roots->object_ids != m.roots.object_ids || roots->kinds != m.roots.kinds ||
                roots->flags != m.roots.flags || roots->root_ids != m.roots.root_ids),
            "roots differ");
    auto ranges = rec.read_ranges(i);
    DIFF_IF(!ranges && !allow_read_errors, "read_ranges: " << error_code_name(ranges.error().code));
    DIFF_IF(ranges && (ranges->surviving_starts != m.ranges.surviving_starts ||
                ranges->surviving_lengths != m.ranges.surviving_lengths ||
                ranges->moved_old_starts != m.ranges.moved_old_starts ||
                ranges->moved_new_starts != m.ranges.moved_new_starts || ranges->moved_lengths != m.ranges.moved_lengths),
            "ranges differ");
    auto objects = rec.read_objects(i);
    if (m.info.trigger == SnapshotTrigger::None && m.objects.size() == 0) {
      DIFF_IF(objects || (objects.error().code != ErrorCode::NoHeapWalk && !allow_read_errors), "expected no-heap-walk");
    } else if (objects || !allow_read_errors) {
      DIFF_IF(!objects, "read_objects: " << error_code_name(objects.error().code));
      ObjectTable want = sorted_objects(m.objects);
      DIFF_IF(objects->addresses != want.addresses, "addresses differ");
      DIFF_IF(objects->type_ids != want.type_ids, "type ids differ");
      DIFF_IF(objects->sizes != want.sizes, "sizes differ");
      DIFF_IF(objects->generations != want.generations, "generations differ");
      DIFF_IF(objects->reference_offsets != want.reference_offsets, "reference offsets differ");
      DIFF_IF(objects->reference_targets != want.reference_targets, "reference targets differ");
    }
    for (const auto& t : m.types) all_types.push_back({t.first, t.second.second.first});
    auto names = rec.read_names(i);
    if (!names && allow_read_errors) continue;
    DIFF_IF(!names, "read_names: " << error_code_name(names.error().code));
    DIFF_IF(names->types().size() != all_types.size(), "type table size");
    for (const auto& [id, name] : all_types) {
      const TypeRecord* t = names->find_type(id);
      DIFF_IF(!t || t->name != name, "type " << id);
    }
    for (const auto& t : m.types) {
      const TypeRecord* r = names->find_type(t.first);
      DIFF_IF(r->class_id != t.second.first || r->module != t.second.second.second, "type fields " << t.first);
    }
    for (const auto& mm : m.methods) {
      const MethodRecord* r = names->find_method(mm.first);
      DIFF_IF(!r || r->name != mm.second, "method " << mm.first);
    }
  }
  return "";
}

std::vector<std::byte> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  for (size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

}  // namespace gcsnap::test
