// The allocation profile: the samples' stacks as pprof stacks (profile.proto,
// github.com/google/pprof proto/profile.proto) with estimated allocated and live values.
#include "export/pprof_alloc_export.hpp"

#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <protozero/pbf_writer.hpp>

#include "errors/cli_error.hpp"
#include "export/pprof_export.hpp"
#include "gcsnap/alloc_join.hpp"

namespace gcsnap::cli {
namespace {

struct Values {
  double alloc_objects = 0, alloc_bytes = 0, live_objects = 0, live_bytes = 0;
};

// The profile's tables: strings, functions (by FunctionID or by name) and locations (by frame).
class AllocProfile {
 public:
  explicit AllocProfile(const AllocNames& names) : names_(names) { intern(""); }

  int64_t intern(const std::string& s) {
    auto [it, added] = strings_.emplace(s, static_cast<int64_t>(string_list_.size()));
    if (added) string_list_.push_back(s);
    return it->second;
  }
  // Location ids (1-based) of a stack, innermost first; an unknown stack is one frame.
  std::vector<uint64_t> locations(const AllocStack* stack) {
    std::vector<uint64_t> out;
    if (!stack) {
      out.push_back(location_of_name(kUnknownAllocSite));
      return out;
    }
    for (const StackFrame& f : stack->frames) out.push_back(location_of(f));
    return out;
  }
  void write(protozero::pbf_writer& profile) const {
    for (const Location& l : locations_) {
      protozero::pbf_writer loc(profile, 4);
      loc.add_uint64(1, l.id);
      if (l.address) loc.add_uint64(3, l.address);
      if (l.function) {
        protozero::pbf_writer line(loc, 4);
        line.add_uint64(1, l.function);
      }
    }
    for (const Function& f : functions_) {
      protozero::pbf_writer fn(profile, 5);
      fn.add_uint64(1, f.id);
      fn.add_int64(2, f.name);  // no system_name: pprof would demangle generic arguments away
      if (f.file) fn.add_int64(4, f.file);
    }
    for (const std::string& s : string_list_) profile.add_string(6, s);
  }
  size_t function_count() const { return functions_.size(); }

 private:
  struct Location {
    uint64_t id = 0, address = 0, function = 0;
  };
  struct Function {
    uint64_t id = 0;
    int64_t name = 0, file = 0;
  };

  uint64_t add_location(uint64_t address, uint64_t function) {
    locations_.push_back(Location{locations_.size() + 1, address, function});
    return locations_.back().id;
  }
  uint64_t function_of(const std::string& name, const std::string& file) {
    auto [it, added] = function_ids_.emplace(std::make_pair(name, file), functions_.size() + 1);
    if (added) functions_.push_back(Function{it->second, intern(name), file.empty() ? 0 : intern(file)});
    return it->second;
  }
  uint64_t location_of_name(const std::string& name) {
    auto [it, added] = named_locations_.emplace(name, 0);
    if (added) it->second = add_location(0, function_of(name, ""));
    return it->second;
  }
  uint64_t location_of(const StackFrame& f) {
    if (f.kind == FrameKind::Native) {
      auto [it, added] = native_locations_.emplace(f.value, 0);
      if (added) it->second = add_location(f.value, function_of(names_.frame_name(f), ""));
      return it->second;
    }
    if (f.kind != FrameKind::Managed) return location_of_name(names_.frame_name(f));
    auto [it, added] = managed_locations_.emplace(f.value, 0);
    if (added) {
      const StackFunction* fn = names_.find_function(f.value);
      it->second = add_location(0, function_of(names_.frame_name(f), fn ? fn->module : std::string()));
    }
    return it->second;
  }

  const AllocNames& names_;
  std::unordered_map<std::string, int64_t> strings_;
  std::vector<std::string> string_list_;
  std::map<std::pair<std::string, std::string>, uint64_t> function_ids_;
  std::vector<Function> functions_;
  std::vector<Location> locations_;
  std::unordered_map<uint64_t, uint64_t> managed_locations_, native_locations_;
  std::unordered_map<std::string, uint64_t> named_locations_;
};

void add_value_type(protozero::pbf_writer& profile, int tag, int64_t type, int64_t unit) {
  protozero::pbf_writer vt(profile, static_cast<protozero::pbf_tag_type>(tag));
  vt.add_int64(1, type);
  vt.add_int64(2, unit);
}

// The four sample types, in the order of each sample's values; returns the string "bytes".
int64_t add_sample_types(protozero::pbf_writer& profile, AllocProfile& tables) {
  const int64_t s_count = tables.intern("count"), s_bytes = tables.intern("bytes");
  add_value_type(profile, 1, tables.intern("alloc_objects"), s_count);
  add_value_type(profile, 1, tables.intern("alloc_space"), s_bytes);
  add_value_type(profile, 1, tables.intern("inuse_objects"), s_count);
  add_value_type(profile, 1, tables.intern("inuse_space"), s_bytes);
  return s_bytes;
}

int64_t rounded(double v) { return static_cast<int64_t>(std::llround(v)); }

// The values of each stack id (0 and undeclared ids: one "unknown" stack).
std::map<uint32_t, Values> values_by_stack(const AllocJoin& join, AllocPprofCounts& counts) {
  std::map<uint32_t, Values> by_stack;
  for (const FollowedSample& f : join.samples()) {
    const uint32_t id = join.names().find_stack(f.sample.stack_id) ? f.sample.stack_id : 0;
    Values& v = by_stack[id];
    const double objects = estimated_objects(f.sample), bytes = estimated_bytes(f.sample);
    v.alloc_objects += objects;
    v.alloc_bytes += bytes;
    if (f.alive) v.live_objects += objects, v.live_bytes += bytes, ++counts.live;
    ++counts.samples;
  }
  return by_stack;
}

}  // namespace

AllocPprofCounts write_alloc_pprof(const std::string& file, const Recording& recording, size_t gc_pos,
                                   OutputFile& out) {
  auto join = AllocJoin::load(recording, gc_pos);
  if (!join) fail_on(file, join.error());
  const uint64_t gc = recording.gcs()[gc_pos].info.gc_number;
  if (join->empty())
    throw CliError(fmt::format("{}: no allocation samples up to GC {} (recorded without allocation sites, or by a "
                               "gcsnap before 1.5): no allocation profile to write",
                               file, gc),
                   kExitProblems);
  AllocPprofCounts counts;
  const std::map<uint32_t, Values> by_stack = values_by_stack(*join, counts);
  AllocProfile tables(join->names());
  std::string data;
  protozero::pbf_writer profile(data);
  const int64_t s_bytes = add_sample_types(profile, tables);
  for (const auto& [id, v] : by_stack) {
    const std::vector<uint64_t> locations = tables.locations(join->names().find_stack(id));
    protozero::pbf_writer sample(profile, 2);
    sample.add_packed_uint64(1, locations.begin(), locations.end());
    const int64_t values[] = {rounded(v.alloc_objects), rounded(v.alloc_bytes), rounded(v.live_objects),
                              rounded(v.live_bytes)};
    sample.add_packed_int64(2, std::begin(values), std::end(values));
    ++counts.stacks;
  }
  const int64_t s_comment = tables.intern(
      fmt::format("gcsnap allocation profile of {} up to GC {}: estimated from {} sampled allocations; inuse = still "
                  "alive at GC {}",
                  file, gc, counts.samples, gc));
  const int64_t s_space = tables.intern("alloc_space");
  tables.write(profile);  // the string table last: every string is interned by now
  profile.add_int64(9, static_cast<int64_t>(recording.gcs()[gc_pos].info.start_time_ns));
  add_value_type(profile, 11, s_space, s_bytes);
  profile.add_int64(12, 102400);  // the mean bytes between AllocationSampled samples
  profile.add_int64(13, s_comment);
  profile.add_int64(14, s_space);
  counts.functions = tables.function_count();
  out.write(gzip_profile(data, out.path()));
  return counts;
}

}  // namespace gcsnap::cli
