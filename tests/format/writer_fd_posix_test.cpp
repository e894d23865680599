// The writer on POSIX file descriptors: one it cannot write, and page recycling on a file and
// on a pipe (WriterOptions::recycle_written_pages; Windows has no ranged write-back).
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <gcsnap/gcsnap.hpp>

#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;

TEST_CASE("a file descriptor that cannot be written fails the writer with IoError") {
  auto w = Writer::from_fd(::dup(0) >= 0 ? -1 : -1);
  REQUIRE_FALSE(w);
  CHECK(w.error().code == ErrorCode::InvalidArgument);
  FILE* ro = std::fopen("/dev/null", "r");
  REQUIRE(ro);
  auto w2 = Writer::from_fd(::dup(fileno(ro)));
  std::fclose(ro);
  REQUIRE_FALSE(w2);
  CHECK(w2.error().code == ErrorCode::IoError);
}

TEST_CASE("recycling written pages leaves the same bytes as plain writes, on a file and on a pipe") {
  // Big enough that ranges 16 MiB behind the end are written back and dropped while writing.
  gcsnap::test::ModelOptions opt;
  opt.max_objects = 800000;
  opt.unaligned = true;
  auto model = gcsnap::test::make_random_gcs(91, 10, opt);
  const std::string plain = gcsnap::test::temp_path("writer-plain");
  const std::string recycled = gcsnap::test::temp_path("writer-recycled");
  WriterOptions off;
  off.recycle_written_pages = false;
  WriterOptions on;
  REQUIRE(on.recycle_written_pages);
  REQUIRE(gcsnap::test::write_model(plain, model, off).is_ok());
  REQUIRE(gcsnap::test::write_model(recycled, model, on).is_ok());
  const auto bytes = gcsnap::test::read_file_bytes(recycled);
  REQUIRE(bytes.size() > (20u << 20));  // past the 16 MiB lag + one 4 MiB flush: ranges were dropped
  CHECK(bytes == gcsnap::test::read_file_bytes(plain));
  auto rec = Recording::open(recycled);
  REQUIRE(rec);
  CHECK(gcsnap::test::compare_with_model(**rec, model, model.size()) == "");
  std::remove(plain.c_str());
  std::remove(recycled.c_str());

  // A pipe has no pages to recycle: the writer switches it off and goes on writing.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::vector<std::byte> piped;
  std::thread drain([&] {
    std::byte buf[1 << 16];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) piped.insert(piped.end(), buf, buf + n);
  });
  auto w = Writer::from_fd(fds[1], on);
  REQUIRE(w);
  auto small = gcsnap::test::make_random_gcs(92, 3);
  for (const auto& g : small) REQUIRE(gcsnap::test::write_gc(**w, g).is_ok());
  CHECK((*w)->close().is_ok());
  drain.join();
  ::close(fds[0]);
  auto from_pipe = Recording::from_bytes(piped);
  REQUIRE(from_pipe);
  CHECK(gcsnap::test::compare_with_model(**from_pipe, small, small.size()) == "");
}
