#include "loading/index_orphans.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

namespace gcsnap::cli {

std::vector<IndexFile> list_index_files(const std::string& file) noexcept try {
  namespace fs = std::filesystem;
  const fs::path path(file);
  const std::string prefix = path.filename().string() + ".";
  constexpr std::string_view kSuffix = ".gcidx";
  fs::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  std::vector<IndexFile> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + kSuffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      continue;
    // FILE.N.gcidx with N all digits: another recording's file named FILE.x.y is not touched.
    const std::string_view digits(name.data() + prefix.size(), name.size() - prefix.size() - kSuffix.size());
    uint64_t number = 0;
    const auto [end_ptr, err] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (err != std::errc{} || end_ptr != digits.data() + digits.size()) continue;
    out.push_back({number, it->path()});
  }
  return out;
} catch (...) {
  return {};
}

size_t remove_orphan_indexes(const std::string& file, const Recording& rec) noexcept try {
  std::set<uint64_t> walked;
  for (const auto& gc : rec.gcs())
    if (gc.has_heap_walk()) walked.insert(gc.info.gc_number);
  size_t removed = 0;
  for (const IndexFile& f : list_index_files(file)) {
    if (walked.count(f.gc_number)) continue;
    std::error_code rm;
    if (std::filesystem::remove(f.path, rm)) ++removed;
  }
  return removed;
} catch (...) {
  return 0;
}

size_t cap_index_files(const std::string& file, uint64_t keep_gc, size_t max_files) noexcept try {
  namespace fs = std::filesystem;
  struct Written {
    fs::file_time_type time;
    uint64_t gc_number;
    fs::path path;
  };
  std::vector<Written> others;
  for (const IndexFile& f : list_index_files(file)) {
    std::error_code ec;
    const auto written = fs::last_write_time(f.path, ec);
    if (f.gc_number != keep_gc && !ec) others.push_back({written, f.gc_number, f.path});
  }
  const size_t keep_others = max_files > 0 ? max_files - 1 : 0;
  if (others.size() <= keep_others) return 0;
  // The most recently written first: those are kept. Times can tie (mingw's libstdc++ reads
  // them to the second), and then the later GC counts as the newer, so the choice is stable.
  std::sort(others.begin(), others.end(), [](const Written& a, const Written& b) {
    return a.time != b.time ? a.time > b.time : a.gc_number > b.gc_number;
  });
  size_t removed = 0;
  for (size_t k = keep_others; k < others.size(); ++k) {
    std::error_code rm;
    if (fs::remove(others[k].path, rm)) ++removed;
  }
  return removed;
} catch (...) {
  return 0;
}

}  // namespace gcsnap::cli
