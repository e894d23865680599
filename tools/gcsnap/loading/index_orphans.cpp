#include "loading/index_orphans.hpp"

#include <charconv>
#include <filesystem>
#include <set>
#include <string_view>
#include <system_error>

namespace gcsnap::cli {

size_t remove_orphan_indexes(const std::string& file, const Recording& rec) noexcept try {
  namespace fs = std::filesystem;
  std::set<uint64_t> walked;
  for (const auto& gc : rec.gcs())
    if (gc.has_heap_walk()) walked.insert(gc.info.gc_number);
  const fs::path path(file);
  const std::string prefix = path.filename().string() + ".";
  constexpr std::string_view kSuffix = ".gcidx";
  fs::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  size_t removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + kSuffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      continue;
    // FILE.N.gcidx with N all digits: another recording's file named FILE.x.y is not touched.
    const std::string_view digits(name.data() + prefix.size(), name.size() - prefix.size() - kSuffix.size());
    uint64_t number = 0;
    const auto [end_ptr, err] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (err != std::errc{} || end_ptr != digits.data() + digits.size() || walked.count(number)) continue;
    std::error_code rm;
    if (fs::remove(it->path(), rm)) ++removed;
  }
  return removed;
} catch (...) {
  return 0;
}

}  // namespace gcsnap::cli
