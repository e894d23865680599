// The groups that grew but do not accumulate (LeakReport::bounded): those that grew and then
// held flat (a cache at its limit), and suspects whose small growth beside a leak's slows down
// (a cache still filling, a lazily filled table of the runtime). docs/cli.md "leaks".
#include "leaks/leak_analysis.hpp"

#include <algorithm>

namespace gcsnap {

size_t flat_from(std::span<const uint64_t> counts) {
  if (counts.size() < 3) return 0;
  const size_t k = counts.size() - 1;
  const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  const uint64_t rise = *hi - *lo;
  if (rise < k) return 0;
  const uint64_t band = rise / 10, last = counts[k];
  auto in_band = [&](uint64_t c) { return (c > last ? c - last : last - c) <= band; };
  size_t j = k;
  while (j > 0 && in_band(counts[j - 1])) --j;
  // The tail spans the last third of the intervals at least (as a suspect must still rise
  // over them); one from the first walk never grew into the band.
  if (j == 0 || k - j < leaks::last_third(k)) return 0;
  return counts[0] + band < last ? j : 0;
}

bool keeps_growing(std::span<const uint64_t> counts) {
  if (counts.size() < 2) return false;
  const size_t k = counts.size() - 1;
  if (counts[k] <= counts[k - 1]) return false;
  const size_t h1 = k / 2, h2 = k - h1;
  if (h1 == 0) return true;
  const auto early = static_cast<double>(counts[h1]) - static_cast<double>(counts[0]);
  const auto late = static_cast<double>(counts[k]) - static_cast<double>(counts[h1]);
  return 2 * late * static_cast<double>(h1) >= early * static_cast<double>(h2);
}

namespace leaks {

std::vector<uint64_t> judged_counts(const Analysis& a, const std::vector<LeakPoint>& series, size_t& offset) {
  // As is_suspect: the last recording's walks alone when they are enough.
  const size_t segment_walks = series.size() - a.segment_start;
  offset = segment_walks >= std::max<size_t>(a.options.min_walks, 2) ? a.segment_start : 0;
  std::vector<uint64_t> counts;
  counts.reserve(series.size() - offset);
  for (size_t i = offset; i < series.size(); ++i) counts.push_back(series[i].count);
  return counts;
}

bool may_be_bounded(const Analysis& a, uint32_t r, const std::vector<LeakPoint>& births) {
  size_t intervals = 0;
  for (size_t i = a.segment_start + 1; i < births.size(); ++i) intervals += births[i].born_here != 0;
  if (intervals < 2) return false;
  const uint32_t type = a.trie.label(r);
  if (type >= a.series.type_counts.size() || a.series.type_counts[type].empty()) return false;
  std::vector<LeakPoint> points(a.series.walks);
  for (size_t i = 0; i < points.size(); ++i) points[i].count = a.series.type_counts[type][i];
  size_t offset = 0;
  return flat_from(judged_counts(a, points, offset)) != 0;
}

std::vector<uint32_t> flat_candidates(const Analysis& a, std::span<const uint32_t> others) {
  std::vector<std::pair<uint64_t, uint32_t>> ranked;  // (rise, group)
  for (const uint32_t g : others) {
    size_t offset = 0;
    const std::vector<uint64_t> counts = judged_counts(a, a.groups.at(g), offset);
    if (flat_from(counts) == 0) continue;
    ranked.emplace_back(counts.back() - std::min(counts.front(), counts.back()), g);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (ranked.size() > a.options.max_bounded) ranked.resize(a.options.max_bounded);
  std::vector<uint32_t> out;
  for (const auto& [rise, g] : ranked) out.push_back(g);
  return out;
}

void keep_flat(const Analysis& a, std::vector<LeakSuspect> groups, std::vector<BoundedGroup>& bounded) {
  for (LeakSuspect& s : groups) {
    size_t offset = 0;
    const size_t from = flat_from(judged_counts(a, s.series, offset));
    // Merged with a group that did not hold flat: not a bounded group any more.
    if (from != 0) bounded.push_back(BoundedGroup{std::move(s), BoundedKind::HeldFlat, offset + from});
  }
}

void demote_slowed(const Analysis& a, std::vector<LeakSuspect>& suspects, std::vector<BoundedGroup>& bounded) {
  uint64_t largest = 0;
  for (const LeakSuspect& s : suspects) largest = std::max(largest, s.accumulated_count);
  const double small = a.options.small_growth_share * static_cast<double>(largest);
  std::vector<LeakSuspect> kept;
  for (LeakSuspect& s : suspects) {
    size_t offset = 0;
    if (static_cast<double>(s.accumulated_count) < small && !keeps_growing(judged_counts(a, s.series, offset)))
      bounded.push_back(BoundedGroup{std::move(s), BoundedKind::Slowed, 0});
    else
      kept.push_back(std::move(s));
  }
  suspects = std::move(kept);
}

}  // namespace leaks
}  // namespace gcsnap
