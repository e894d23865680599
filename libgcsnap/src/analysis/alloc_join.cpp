// Sampled allocations joined to a heap walk's objects (gcsnap/alloc_join.hpp).

#include "gcsnap/alloc_join.hpp"

#include <algorithm>
#include <map>
#include <new>

namespace gcsnap {

Result<AllocJoin> AllocJoin::load(const Recording& recording, size_t gc_pos) {
  auto samples = follow_alloc_samples(recording, 0, gc_pos);
  if (!samples) return samples.status();
  if (samples->empty()) return from_parts({}, AllocNames{});  // no names read for files without samples
  auto names = AllocNames::read(recording, gc_pos);
  if (!names) return names.status();
  return from_parts(std::move(*samples), std::move(*names));
}

Result<AllocJoin> AllocJoin::from_parts(std::vector<FollowedSample> samples, AllocNames names) try {
  AllocJoin join;
  join.samples_ = std::move(samples);
  join.names_ = std::move(names);
  for (size_t i = 0; i < join.samples_.size(); ++i)
    if (join.samples_[i].alive) join.live_.emplace_back(join.samples_[i].address, static_cast<uint32_t>(i));
  std::sort(join.live_.begin(), join.live_.end());
  return join;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "joining allocation samples");
}

const FollowedSample* AllocJoin::find_live(uint64_t address) const noexcept {
  auto it = std::lower_bound(live_.begin(), live_.end(), std::make_pair(address, uint32_t{0}));
  if (it == live_.end() || it->first != address) return nullptr;
  return &samples_[it->second];
}

std::string AllocJoin::site(const AllocSample& sample) const {
  const AllocStack* stack = names_.find_stack(sample.stack_id);
  if (!stack) return kUnknownAllocSite;
  const StackFrame* frame = names_.site_frame(*stack);
  return frame ? names_.frame_name(*frame) : std::string(kUnknownAllocSite);
}

std::vector<std::string> AllocJoin::stack(const AllocSample& sample) const {
  std::vector<std::string> out;
  if (const AllocStack* stack = names_.find_stack(sample.stack_id))
    for (const StackFrame& f : stack->frames) out.push_back(names_.frame_name(f));
  return out;
}

Result<std::vector<AllocSiteShare>> rank_alloc_sites(const AllocJoin& join, std::span<const uint32_t> indices,
                                                     size_t top) try {
  std::map<std::string, AllocSiteShare> by_site;
  uint64_t total = 0;
  const auto samples = join.samples();
  for (uint32_t i : indices) {
    if (i >= samples.size()) return make_error(ErrorCode::InvalidArgument, "sample index out of range");
    const AllocSample& s = samples[i].sample;
    std::string name = join.site(s);
    AllocSiteShare& site = by_site[name];
    site.site = std::move(name);
    site.samples += s.scale;
    site.est_bytes += estimated_bytes(s);
    site.est_objects += estimated_objects(s);
    total += s.scale;
  }
  std::vector<AllocSiteShare> out;
  out.reserve(by_site.size());
  for (auto& [name, site] : by_site) {
    site.share = total ? double(site.samples) / double(total) : 0.0;
    out.push_back(std::move(site));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const AllocSiteShare& a, const AllocSiteShare& b) { return a.samples > b.samples; });
  if (top && out.size() > top) out.resize(top);
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "ranking allocation sites");
}

}  // namespace gcsnap
