// Running the checks of one analysis index read (index_array_checks.hpp).

#include "analysis_index/index_array_checks.hpp"

#include <new>

namespace gcsnap::detail {

std::optional<Error> CheckJobs::run(std::span<const std::byte> bytes, uint64_t file_size) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    try {
      Source src(bytes);
      for (size_t k; (k = next.fetch_add(1)) < jobs_.size();) {
        jobs_[k].result = jobs_[k].run(src);
        jobs_[k].error = src.error();
      }
    } catch (const std::bad_alloc&) {
      out_of_memory_.store(true);  // the job that threw did not finish: the read fails
    }
  };
  constexpr uint64_t kParallelFrom = uint64_t{4} << 20;  // below this a thread costs more than it saves
  run_on_two_threads(work, jobs_.size() > 1 && file_size >= kParallelFrom);
  if (out_of_memory_.load()) return make_error(ErrorCode::OutOfMemory, "out of memory checking the analysis index");
  for (const Job& j : jobs_) {
    switch (j.result) {
      case ArrayCheck::Ok: continue;
      case ArrayCheck::BadChecksum: return damaged(ErrorCode::ChecksumMismatch, "analysis index array checksum");
      case ArrayCheck::Unreadable: return Error{ErrorCode::IoError, 0, "cannot read the analysis index", j.error};
      case ArrayCheck::BadElement: return damaged(ErrorCode::CorruptSection, j.rule);
      case ArrayCheck::BadSecondElement: return damaged(ErrorCode::CorruptSection, j.second_rule);
    }
  }
  return std::nullopt;
}

}  // namespace gcsnap::detail
