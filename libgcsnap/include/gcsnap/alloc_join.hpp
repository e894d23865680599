#pragma once
/// Sampled allocations joined to the objects of one heap walk (issue 43): which sample's
/// object an address of the walk is, the site and stack a sample names, and the sites of a
/// set of samples ranked with their share. Built on alloc_samples.hpp.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gcsnap/alloc_samples.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// The name shown for a sample whose stack is unknown, undeclared or has no managed frame.
inline constexpr const char* kUnknownAllocSite = "<unknown site>";

/// Every sample of blocks 0..gc_pos followed to gc_pos, with the names they use.
class AllocJoin {
 public:
  /// Errors: those of follow_alloc_samples and AllocNames::read; OutOfMemory.
  [[nodiscard]] static Result<AllocJoin> load(const Recording& recording, size_t gc_pos);
  /// Build from followed samples and names (tests, tools). Errors: OutOfMemory.
  [[nodiscard]] static Result<AllocJoin> from_parts(std::vector<FollowedSample> samples, AllocNames names);

  /// No sample at all (every file before 1.5, and recordings made with --no-alloc-sites).
  bool empty() const noexcept { return samples_.empty(); }
  std::span<const FollowedSample> samples() const noexcept { return samples_; }
  const AllocNames& names() const noexcept { return names_; }
  /// The sample whose object is at ADDRESS in the walk (alive), or nullptr when no sampled
  /// object is there.
  const FollowedSample* find_live(uint64_t address) const noexcept;
  /// The sample's site: AllocNames::site_frame's name ("Namespace.Type.Method"), or
  /// kUnknownAllocSite for an unknown or undeclared stack or one without a managed frame.
  std::string site(const AllocSample& sample) const;
  /// The names of the sample's frames, innermost first; empty for an unknown stack.
  std::vector<std::string> stack(const AllocSample& sample) const;

 private:
  std::vector<FollowedSample> samples_;
  std::vector<std::pair<uint64_t, uint32_t>> live_;  // walk address -> sample index, by address
  AllocNames names_;
};

/// One site's share of a set of samples.
struct AllocSiteShare {
  std::string site;
  uint64_t samples = 0;     ///< samples (each counted scale times)
  double share = 0;         ///< samples / the set's samples
  double est_bytes = 0;     ///< estimated_bytes summed
  double est_objects = 0;   ///< estimated_objects summed
};

/// Group the samples at INDICES (into join.samples()) by site, most samples first (then by
/// name); keep the first TOP (0: all). Errors: OutOfMemory.
[[nodiscard]] Result<std::vector<AllocSiteShare>> rank_alloc_sites(const AllocJoin& join,
                                                                   std::span<const uint32_t> indices, size_t top);

}  // namespace gcsnap
