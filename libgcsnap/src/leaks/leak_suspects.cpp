#include "gcsnap/leak_suspects.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <numeric>
#include <tuple>

#include "leaks/leak_analysis.hpp"
#include "gcsnap/path_fold.hpp"

namespace gcsnap {

Result<std::vector<uint32_t>> collapse_repeats(std::span<const uint32_t> types, size_t max_period) {
  auto folded = fold_repeats(types, max_period);
  if (!folded) return folded.error();
  return std::move(folded->keys);
}

namespace {

size_t ceil_share(size_t n, double share) {
  const double x = std::ceil(static_cast<double>(n) * share - 1e-9);
  return std::max<size_t>(1, x < 0 ? 0 : static_cast<size_t>(x));
}
}  // namespace

bool is_growing_series(std::span<const uint64_t> counts, double min_growth_share) {
  if (counts.size() < 2) return false;
  const size_t k = counts.size() - 1;
  size_t grew = 0;
  for (size_t i = 1; i <= k; ++i) grew += counts[i] > counts[i - 1];
  if (grew < ceil_share(k, min_growth_share)) return false;
  if (counts[k] <= counts[0]) return false;
  return counts[k] > counts[k - leaks::last_third(k)];
}

namespace {

using leaks::Analysis;

std::vector<TypeSeries> type_series(const Analysis& a) {
  std::vector<TypeSeries> out;
  for (uint32_t t = 0; t < a.series.type_counts.size(); ++t) {
    if (a.series.type_counts[t].empty()) continue;
    out.push_back(TypeSeries{a.types.name(t), a.series.type_counts[t], a.series.type_bytes[t]});
  }
  std::sort(out.begin(), out.end(), [](const TypeSeries& x, const TypeSeries& y) { return x.type < y.type; });
  return out;
}

// The walks of RECORDINGS, ordered by the time of each recording's first GC, into REPORT.
void list_walks(std::span<const Recording* const> recordings, LeakReport& report) {
  report.recording_order.resize(recordings.size());
  std::iota(report.recording_order.begin(), report.recording_order.end(), size_t{0});
  auto first_time = [&](size_t i) {
    const auto gcs = recordings[i]->gcs();
    return gcs.empty() ? UINT64_MAX : gcs.front().info.start_time_ns;
  };
  std::stable_sort(report.recording_order.begin(), report.recording_order.end(),
                   [&](size_t x, size_t y) { return first_time(x) < first_time(y); });
  for (size_t r = 0; r < recordings.size(); ++r) {
    const auto gcs = recordings[report.recording_order[r]]->gcs();
    for (size_t i = 0; i < gcs.size(); ++i)
      if (gcs[i].has_heap_walk())
        report.walks.push_back(LeakWalk{r, i, gcs[i].info.gc_number, gcs[i].info.start_time_ns});
  }
}

// Where each walk of a report is read from: its recording and its file (empty: decode).
struct WalkSource {
  std::span<const Recording* const> recordings;
  std::span<const std::string> paths;
  const LeakReport& report;

  const std::string& path(const LeakWalk& walk) const {
    static const std::string kDecode;
    return paths.empty() ? kDecode : paths[report.recording_order[walk.recording]];
  }
  const Recording& recording(const LeakWalk& walk) const { return *recordings[report.recording_order[walk.recording]]; }
};

// First pass: the objects of every walk, their births and the types' series; the last walk
// whole (graph, dominators), as the suspects are judged there.
Status scan_walks(Analysis& a, LeakReport& report, const WalkSource& source) {
  a.steps.reset(report.walks.size());
  std::vector<uint32_t> next;  // the walk before's objects' nodes here
  for (uint32_t w = 0; w < report.walks.size(); ++w) {
    LeakWalk& walk = report.walks[w];
    const bool same_recording = w > 0 && report.walks[w - 1].recording == walk.recording;
    if (!same_recording) a.types.start_recording();
    bool identity = false;
    // The walk before is needed only for its objects' identity: free the rest first.
    if (a.last) a.last->slim();
    const bool is_last = w + 1 == report.walks.size();
    next.clear();
    auto scanned = leaks::scan_walk(source.recording(walk), source.path(walk), walk.gc_pos, w,
                                    same_recording ? a.last.get() : nullptr, &identity, a.types, a.series, is_last,
                                    a.options.include_weak, w > 0 ? &next : nullptr);
    if (!scanned) return scanned.error();
    if (w > 0) a.steps.set(w - 1, next);
    a.last = std::move(scanned).value();
    walk.identity_from_previous = identity;
    walk.objects = a.last->graph().node_count();
    for (const uint64_t size : a.last->graph().sizes()) walk.bytes += size;
  }
  std::vector<uint32_t>().swap(next);
  a.segment_start = report.walks.size() - 1;
  while (a.segment_start > 0 && report.walks[a.segment_start].identity_from_previous) --a.segment_start;
  a.by_identity = a.segment_start + 1 < report.walks.size();
  leaks::compose_identity(a);
  return {};
}

Status check_inputs(std::span<const Recording* const> recordings, std::span<const std::string> paths) {
  if (recordings.empty()) return make_error(ErrorCode::InvalidArgument, "no recording given");
  if (!paths.empty() && paths.size() != recordings.size())
    return make_error(ErrorCode::InvalidArgument, "not one path per recording");
  for (const Recording* r : recordings)
    if (!r) return make_error(ErrorCode::InvalidArgument, "a recording is null");
  return {};
}

}  // namespace

Result<LeakReport> find_leak_suspects(std::span<const Recording* const> recordings, const LeakOptions& options) {
  return find_leak_suspects(recordings, {}, options);
}

Result<LeakReport> find_leak_suspects(std::span<const Recording* const> recordings, std::span<const std::string> paths,
                                      const LeakOptions& options) try {
  if (Status st = check_inputs(recordings, paths); !st) return st.error();
  LeakReport report;
  list_walks(recordings, report);
  if (report.walks.empty()) return make_error(ErrorCode::NotFound, "no heap walk in the recordings");

  Analysis a{options, leaks::ShapeTrie{}, {}, {}, nullptr, 0, false, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, nullptr};
  a.series.walks = report.walks.size();
  const WalkSource source{recordings, paths, report};
  if (Status st = scan_walks(a, report, source); !st) return st.error();
  report.types = type_series(a);
  if (report.walks.size() < std::max<size_t>(options.min_walks, 2)) {
    report.too_few_walks = true;
    return report;
  }
  auto open_walk = [&](size_t w) {
    const LeakWalk& walk = report.walks[w];
    return leaks::open_walk_graph(source.recording(walk), source.path(walk), walk.gc_pos, a.types,
                                  options.include_weak);
  };
  auto reopen_last = [&]() {
    const LeakWalk& walk = report.walks.back();
    return leaks::reopen_walk(*a.last, source.recording(walk), source.path(walk), options.include_weak);
  };
  auto suspects = leaks::judge_groups(a, report.groups, open_walk, reopen_last);
  if (!suspects) return suspects.error();
  report.suspects = std::move(suspects->suspects);
  report.bounded = std::move(suspects->bounded);
  std::stable_sort(report.bounded.begin(), report.bounded.end(), [](const BoundedGroup& x, const BoundedGroup& y) {
    return std::tie(y.group.count_growth, x.group.type) < std::tie(x.group.count_growth, y.group.type);
  });
  if (report.bounded.size() > options.max_bounded) report.bounded.resize(options.max_bounded);
  std::stable_sort(report.suspects.begin(), report.suspects.end(), [](const LeakSuspect& x, const LeakSuspect& y) {
    return std::tie(y.retained_growth, y.bytes_growth, x.type) < std::tie(x.retained_growth, x.bytes_growth, y.type);
  });
  if (options.top != 0 && report.suspects.size() > options.top) report.suspects.resize(options.top);
  return report;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "finding leak suspects");
}

}  // namespace gcsnap
