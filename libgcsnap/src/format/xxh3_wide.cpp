// The AVX2 paths are compiled for that target function by function (xxhash's XXH_TARGET_AVX2), not
// with -mavx2 for the file: nothing else in the program may pick up AVX2 code, and the choice is
// made once at run time from the CPU (and the operating system's saving of its registers).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GCSNAP_XXH3_AVX2 1
#define XXH_DISPATCH_AVX2 1
#define XXH_TARGET_AVX2 __attribute__((__target__("avx2")))
#include <immintrin.h>
#endif
// Before the header's own include, so that xxhash.h is read once with the AVX2 kernels in it.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/xxh3_wide.hpp"

namespace gcsnap::format {
namespace {

#if GCSNAP_XXH3_AVX2
bool cpu_has_avx2() noexcept {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}

// What XXH3_64bits does for inputs above XXH3_MIDSIZE_MAX, with the AVX2 kernels.
XXH_TARGET_AVX2 uint64_t hash_long_avx2(const void* data, size_t size) noexcept {
  return XXH3_hashLong_64b_internal(data, size, XXH3_kSecret, sizeof(XXH3_kSecret), XXH3_accumulate_512_avx2,
                                    XXH3_scrambleAcc_avx2);
}

XXH_TARGET_AVX2 void update_avx2(XXH3_state_t* state, const void* data, size_t size) noexcept {
  (void)XXH3_update(state, static_cast<const xxh_u8*>(data), size, XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}
#else
bool cpu_has_avx2() noexcept { return false; }
#endif

}  // namespace

uint64_t xxh3_64(const void* data, size_t size) noexcept {
#if GCSNAP_XXH3_AVX2
  if (size > XXH3_MIDSIZE_MAX && cpu_has_avx2()) return hash_long_avx2(data, size);
#endif
  return XXH3_64bits(data, size);
}

void xxh3_update(XXH3_state_t* state, const void* data, size_t size) noexcept {
#if GCSNAP_XXH3_AVX2
  if (cpu_has_avx2()) return update_avx2(state, data, size);
#endif
  (void)XXH3_64bits_update(state, data, size);
}

bool xxh3_uses_avx2() noexcept { return cpu_has_avx2(); }

}  // namespace gcsnap::format
