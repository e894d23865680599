# GCSNAP_PORTABLE: binaries that need only the C library and the kernel, for the release
# packages (scripts/package.sh). The C++ runtime and libgcc are linked in, zstd and zlib from their
# static archives, fmt as headers only; CLI11 and xxhash are header-only anyway. The profiler library
# exports only DllGetClassObject (exports.map), so its copy of libstdc++ never meets the one a
# .NET app loads: every reference binds inside the library.
option(GCSNAP_PORTABLE "Link the C++ runtime, zstd, zlib and fmt statically into gcsnap and its profiler" OFF)

# The Windows build (scripts/build-windows.sh) links statically too: zstd built from Debian's
# source, fmt headers only.
if(GCSNAP_PORTABLE)
  # zlib (export --to pprof) from its static archive too (FindZLIB reads this).
  set(ZLIB_USE_STATIC_LIBS ON)
endif()
if(GCSNAP_PORTABLE OR WIN32)
  set(GCSNAP_ZSTD_TARGET zstd::libzstd_static)
  set(GCSNAP_FMT_TARGET fmt::fmt-header-only)
else()
  set(GCSNAP_ZSTD_TARGET zstd::libzstd_shared)
  set(GCSNAP_FMT_TARGET fmt::fmt)
endif()

# gcsnap_make_portable(TARGET): with GCSNAP_PORTABLE, link TARGET's C++ runtime statically,
# with portable/glibc_compat.cpp, which keeps the oldest glibc it needs at 2.34.
function(gcsnap_make_portable target)
  if(GCSNAP_PORTABLE AND NOT MSVC)
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/portable/glibc_compat.cpp)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
endfunction()
