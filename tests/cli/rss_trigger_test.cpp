// record --on-rss: the size argument and the walk thresholds (process/rss_trigger.hpp).
#include <catch2/catch.hpp>

#include <unistd.h>

#include "errors/cli_error.hpp"
#include "platform/process_memory.hpp"
#include "process/rss_trigger.hpp"

using namespace gcsnap::cli;

TEST_CASE("parse_size takes binary units and refuses anything else") {
  CHECK(parse_size("1048576", "--on-rss") == 1048576);
  CHECK(parse_size("512M", "--on-rss") == 512ull << 20);
  CHECK(parse_size("512MiB", "--on-rss") == 512ull << 20);
  CHECK(parse_size("300MB", "--on-rss") == 300ull << 20);
  CHECK(parse_size("2G", "--on-rss") == 2ull << 30);
  CHECK(parse_size("1.5GiB", "--on-rss") == 3ull << 29);
  CHECK(parse_size("64k", "--on-rss") == 64ull << 10);
  for (const char* bad : {"", "M", "0", "0M", "12X", "1.2.3M", "-5M", "5 M", "99999999999999999999"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_size(bad, "--on-rss"), CliError);
  }
}

TEST_CASE("next_threshold is the next multiple of the step above the size reached") {
  const uint64_t step = 100;
  CHECK(RssTrigger::next_threshold(100, step) == 200);
  CHECK(RssTrigger::next_threshold(199, step) == 200);
  CHECK(RssTrigger::next_threshold(350, step) == 400);  // jumped two steps: one walk, next at 400
  CHECK(RssTrigger::next_threshold(0, step) == 100);
}

TEST_CASE("resident_bytes reads this process and gives 0 for none") {
  CHECK(resident_bytes(static_cast<long>(::getpid())) > (1u << 20));
  CHECK(resident_bytes(999999999) == 0);
}
