// The GCTriggered payload the shim reads on .NET 8 to tell induced GCs (gc_trigger_event.hpp).
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

#include "gc_trigger_event.hpp"

using namespace gcsnap::shim;

TEST_CASE("GCTriggered: the reason is the payload's first little-endian u32", "[shim][runtimes]") {
  const std::array<uint8_t, 6> compacting{10, 0, 0, 0, 7, 0};  // Reason 10, ClrInstanceID 7
  REQUIRE(gc_triggered_reason(compacting));
  CHECK(*gc_triggered_reason(compacting) == 10);
  const std::array<uint8_t, 4> big{0x11, 0x00, 0x00, 0x01};
  CHECK(*gc_triggered_reason(big) == 0x01000011u);
  const std::array<uint8_t, 3> short_payload{1, 0, 0};
  CHECK_FALSE(gc_triggered_reason(short_payload));
  CHECK_FALSE(gc_triggered_reason({}));
}

TEST_CASE("GCTriggered: the reasons later runtimes report as induced", "[shim][runtimes]") {
  for (uint32_t r : {1u, 2u, 7u, 9u, 10u, 11u, 13u, 17u}) {
    INFO("reason " << r);
    CHECK(is_induced_gc_reason(r));
  }
  // Allocation (small, large, out of space), empty, stress, provisional mode, BGC tuning.
  for (uint32_t r : {0u, 3u, 4u, 5u, 6u, 8u, 12u, 14u, 15u, 16u, 18u, 0xFFFFFFFFu}) {
    INFO("reason " << r);
    CHECK_FALSE(is_induced_gc_reason(r));
  }
}
