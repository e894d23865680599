#!/usr/bin/env bash
# Build gcsnap for 64-bit Windows with mingw-w64 (cmake/toolchains/mingw-w64-x86_64.cmake) into
# build-windows/ (or $GCSNAP_WINDOWS_BUILD_DIR); extra arguments go to cmake.
# Installs what it needs from apt (mingw-w64, wine64 to run the tests, a deb-src entry). The
# dependencies for Windows come from Debian: zstd, zlib and Catch2 built from Debian's source
# packages (apt-get source), fmt, CLI11, xxhash, robin-map and protozero used header-only from
# Debian's -dev packages.
# The end-to-end tests (tests/e2e_windows) check Windows recordings with the Linux build's gcsnap:
# ${GCSNAP_BUILD_DIR:-build}, which scripts/test.sh builds first.
# They are installed once into <build>/deps (kept across runs; delete it to rebuild them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GCSNAP_WINDOWS_BUILD_DIR:-$root/build-windows}
deps=$build/deps
mingw=x86_64-w64-mingw32

"$root/scripts/setup.sh"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)

# apt: the cross compiler, wine64 (the tests run under it), dpkg-dev (apt-get source unpacks with
# dpkg-source), zip; and the deb-src entry that apt-get source needs.
packages=(g++-mingw-w64-x86-64-posix wine64 dpkg-dev xz-utils zip)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
src_list=/etc/apt/sources.list.d/gcsnap-deb-src.sources
need_update=0
if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "build-windows: adding a deb-src entry ($src_list)"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | "${sudo_cmd[@]}" tee "$src_list" >/dev/null
  else
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list | "${sudo_cmd[@]}" tee "${src_list%.sources}.list" >/dev/null
  fi
  need_update=1
fi
if ((${#missing[@]})) || ((need_update)); then
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
fi
if ((${#missing[@]})); then
  echo "build-windows: installing ${missing[*]}"
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

toolchain=$root/cmake/toolchains/mingw-w64-x86_64.cmake
export GCSNAP_WINDOWS_DEPS=$deps

# unpack_source PACKAGE: Debian's source of PACKAGE unpacked under $deps/src; prints its folder.
# Each version apt knows is tried, newest first: a mirror may list a security update's source
# before it serves the files (seen: libzstd 1.5.4+dfsg2-5+deb12u1 answered 404), and any of
# the versions builds what gcsnap needs.
unpack_source() {
  local pkg=$1 dir=$deps/src/$1 version err=""
  if [ ! -d "$dir/unpacked" ]; then
    for version in $(apt-cache showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -u -r -V); do
      rm -rf "$dir" && mkdir -p "$dir"
      if err=$(cd "$dir" && apt-get source --download-only "$pkg=$version" 2>&1 >/dev/null) &&
         (cd "$dir" && dpkg-source --no-check -x ./*.dsc unpacked >/dev/null 2>&1); then
        break
      fi
      err="$pkg=$version: $(printf '%s\n' "$err" | grep -m1 '^E:' || echo 'dpkg-source failed')"
      rm -rf "$dir/unpacked"
    done
    [ -d "$dir/unpacked" ] ||
      { echo "build-windows: error: cannot fetch the Debian source of $pkg (${err:-apt knows no source version})" >&2; exit 1; }
  fi
  echo "$dir/unpacked"
}

# cmake_install NAME SOURCE_DIR ARGS...: configure, build and install into $deps with the toolchain.
cmake_install() {
  local name=$1 src=$2; shift 2
  cmake -S "$src" -B "$deps/build/$name" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$deps" "$@" >"$deps/build/$name.log" 2>&1 &&
    cmake --build "$deps/build/$name" -j"$(nproc)" >>"$deps/build/$name.log" 2>&1 &&
    cmake --install "$deps/build/$name" >>"$deps/build/$name.log" 2>&1 ||
    { echo "build-windows: error: building $name for Windows failed (log: $deps/build/$name.log)" >&2; exit 1; }
}

if [ ! -f "$deps/.done" ]; then
  start=$SECONDS
  rm -rf "$deps" && mkdir -p "$deps/build" "$deps/include"
  zstd_src=$(unpack_source libzstd)
  cmake_install zstd "$zstd_src/build/cmake" -DZSTD_BUILD_SHARED=OFF -DZSTD_BUILD_STATIC=ON \
    -DZSTD_BUILD_PROGRAMS=OFF -DZSTD_BUILD_TESTS=OFF -DZSTD_MULTITHREAD_SUPPORT=OFF
  catch2_src=$(unpack_source catch2)
  cmake_install catch2 "$catch2_src" -DCATCH_BUILD_TESTING=OFF -DCATCH_INSTALL_DOCS=OFF -DCATCH_INSTALL_HELPERS=ON
  # Header-only: the -dev packages' headers hold all the code (fmt with FMT_HEADER_ONLY).
  cp -r /usr/include/fmt /usr/include/CLI /usr/include/tsl "$deps/include/"
  cp /usr/include/xxhash.h /usr/include/xxh3.h "$deps/include/"
  touch "$deps/.done"
  echo "build-windows: dependencies for Windows built in $((SECONDS - start)) s ($deps)"
fi

# zlib (the gzip of `export --to pprof`), static, from Debian's source: Debian's tarball has no
# win32/ makefiles, and the library is its top-level C files, so they are compiled here directly.
# protozero (the protobuf encoding) is header-only. Built once into $deps like the others, with
# a marker of its own so an older deps folder gains it alone.
if [ ! -f "$deps/.zlib-done" ]; then
  start=$SECONDS
  zlib_src=$(unpack_source zlib)
  rm -rf "$deps/build/zlib" && mkdir -p "$deps/build/zlib"
  (cd "$deps/build/zlib" &&
     for c in "$zlib_src"/*.c; do "$mingw-gcc-posix" -O2 -DNDEBUG -I"$zlib_src" -c "$c" -o "$(basename "$c" .c).o" || exit 1; done &&
     "$mingw-gcc-ar-posix" rcs libz.a ./*.o) >"$deps/build/zlib.log" 2>&1 ||
    { echo "build-windows: error: building zlib for Windows failed (log: $deps/build/zlib.log)" >&2; exit 1; }
  mkdir -p "$deps/lib" "$deps/include"
  cp "$deps/build/zlib/libz.a" "$deps/lib/"
  cp "$zlib_src/zlib.h" "$zlib_src/zconf.h" "$deps/include/"
  cp -r /usr/include/protozero "$deps/include/"
  touch "$deps/.zlib-done"
  echo "build-windows: zlib for Windows built in $((SECONDS - start)) s ($deps)"
fi

# The tests run under wine64 with a private prefix (created on the first run, ~10 s) and no
# debug chatter: ctest and Catch's test discovery call this wrapper (CMAKE_CROSSCOMPILING_EMULATOR).
# W^X is off under Wine: with it on, the runtime dies (Internal CLR error 0x80131506) when a
# finalizer frees a DynamicMethod's code, which an EventPipe session on the runtime provider
# makes likely (docs/windows.md "How it is tested").
wine64=$(command -v wine64 || echo /usr/lib/wine/wine64)
cat >"$build/wine-run" <<WRAP
#!/bin/sh
# Run a Windows program of this build under Wine (written by scripts/build-windows.sh).
export WINEPREFIX="\${GCSNAP_WINEPREFIX:-$build/wineprefix}" WINEDEBUG="\${WINEDEBUG:--all}" WINEDLLOVERRIDES="\${WINEDLLOVERRIDES:-mscoree,mshtml=}"
export DOTNET_EnableWriteXorExecute="\${DOTNET_EnableWriteXorExecute:-0}"
exec "$wine64" "\$@"
WRAP
chmod +x "$build/wine-run"

cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_CROSSCOMPILING_EMULATOR="$build/wine-run" \
  -DCMAKE_BUILD_TYPE=${GCSNAP_BUILD_TYPE:-RelWithDebInfo} -DGCSNAP_BUILD_TESTS=ON -DGCSNAP_BUILD_TOOLS=ON \
  -DGCSNAP_BUILD_SHIM=ON -DGCSNAP_BUILD_BENCH=OFF -DGCSNAP_LINUX_BUILD_DIR="${GCSNAP_BUILD_DIR:-$root/build}" \
  "$@" >"$build/configure.log" 2>&1 ||
  { tail -30 "$build/configure.log" >&2; echo "build-windows: configure failed (log: $build/configure.log)" >&2; exit 1; }
log=$build/build.log
rc=0
cmake --build "$build" -j"$(nproc)" >"$log" 2>&1 || rc=$?
warnings=$(grep -c "warning:" "$log" || true)
if ((warnings)); then
  grep -A2 "warning:" "$log" | grep -v "^--$"
fi
echo "build-windows: $warnings compiler warnings (full log: $log)"
if ((rc)); then
  grep -E "error|FAILED" "$log" | head -40 >&2
  echo "build-windows: failed (exit $rc); full log: $log" >&2
  exit "$rc"
fi

# The zip a Windows user unpacks: gcsnap.exe and the profiler DLL side by side (where
# `gcsnap record` looks for it), and the docs. With the shim on (GCSNAP_BUILD_SHIM) the DLL
# must be there; without it the zip says so in its name (-no-shim).
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
stage=$build/zip/gcsnap-$version-windows-x64
rm -rf "$build/zip" && mkdir -p "$stage/docs"
# Without their debug info (RelWithDebInfo keeps it in the build tree).
strip_to() { "$mingw-strip" -o "$2" "$1"; }
strip_to "$build/bin/gcsnap.exe" "$stage/gcsnap.exe"
name=gcsnap-$version-windows-x64
if grep -q "^GCSNAP_BUILD_SHIM:BOOL=ON" "$build/CMakeCache.txt"; then
  dll=$(find "$build/bin" "$build/profiler-shim" -name gcsnap_profiler.dll -print -quit 2>/dev/null || true)
  [ -n "$dll" ] || { echo "build-windows: error: the shim is on but gcsnap_profiler.dll was not built" >&2; exit 1; }
  strip_to "$dll" "$stage/gcsnap_profiler.dll"
else
  name=$name-no-shim
fi
cp "$root/README.md" "$stage/"
cp "$root/docs/windows.md" "$root/docs/cli.md" "$root/docs/guide.md" "$root/docs/shim.md" "$root/format-spec.md" "$stage/docs/"
rm -f "$build"/gcsnap-*-windows-x64*.zip
[ "$name" = "gcsnap-$version-windows-x64" ] || mv "$stage" "$build/zip/$name"
(cd "$build/zip" && zip -qr "$build/$name.zip" "$name")
echo "build-windows: $build/$name.zip ($(du -k "$build/$name.zip" | cut -f1) KiB: $(cd "$build/zip/$name" && find . -type f | sort | tr '\n' ' '))"
