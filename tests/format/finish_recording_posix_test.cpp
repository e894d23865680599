// finish_recording on a file it cannot finish writing: a file size limit in a forked child
// (POSIX: fork and RLIMIT_FSIZE).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "finish_sample.hpp"
#include "gcsnap/finish_recording.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

TEST_CASE("finish_recording that cannot write the index leaves the file ending after its last complete GC") {
  Sample s = make_sample(16, 3);
  const std::string path = temp_path("finish-nospace");
  const uint64_t keep = s.block_ends[1];
  write_bytes(path, {s.bytes.data(), static_cast<size_t>(keep + 100)});  // a partial third GC
  // In a child: a file size limit just past the kept blocks makes the index's write fail
  // (EFBIG, as a full disk gives ENOSPC).
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{static_cast<rlim_t>(keep + 8), static_cast<rlim_t>(keep + 8)};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    auto report = finish_recording(path);
    ::_exit(!report && report.error().code == ErrorCode::IoError ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  auto bytes = read_file_bytes(path);
  CHECK(bytes.size() == keep);
  auto rec = Recording::open(path);
  REQUIRE(rec);
  CHECK((*rec)->end() == FileEnd::NoIndex);
  CHECK((*rec)->gcs().size() == 2);
  // With room again, it finishes.
  auto report = finish_recording(path);
  REQUIRE(report);
  require_sound(path, s, 2);
  std::remove(path.c_str());
}
