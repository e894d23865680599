#!/usr/bin/env bash
# Build the release packages into dist/ (or $GCSNAP_DIST_DIR), from a build of gcsnap and its
# profiler alone in build-package/ (or $GCSNAP_PACKAGE_BUILD_DIR), linked with GCSNAP_PORTABLE:
#   gcsnap-VERSION-linux-x64.tar.gz   bin/gcsnap, lib/gcsnap/libgcsnap_profiler.so, man page, docs
#   gcsnap_VERSION_amd64.deb          the same files under /usr
#   gcsnap.VERSION.nupkg, gcsnap.linux-x64.VERSION.nupkg   the .NET tool (dotnet tool install gcsnap)
# VERSION is project(VERSION) in CMakeLists.txt. The binaries need only the C library; the
# newest glibc symbol version they use is printed, written to dist/glibc.txt and made the .deb's
# dependency. With GCSNAP_PACKAGE_WINDOWS=1, scripts/build-windows.sh is run too (its zip, when
# it writes one, lands in dist/).
# docs/install.md describes the packages.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GCSNAP_PACKAGE_BUILD_DIR:-$root/build-package}
dist=${GCSNAP_DIST_DIR:-$root/dist}
licence=MIT  # the licence expression the .nupkg files declare

echo "package: building gcsnap and its profiler (Release, static C++ runtime) in $build"
GCSNAP_BUILD_DIR=$build GCSNAP_SETUP=--build GCSNAP_BUILD_TYPE=Release \
  GCSNAP_BUILD_TARGETS="gcsnap_cli gcsnap_profiler" \
  "$root/scripts/build.sh" -DGCSNAP_PORTABLE=ON -DGCSNAP_BUILD_TESTS=OFF -DGCSNAP_BUILD_BENCH=OFF \
  -DGCSNAP_PACKAGE_TESTS=ON -DGCSNAP_DIST_DIR="$dist"
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
bins=("$build/bin/gcsnap" "$build/bin/libgcsnap_profiler.so")

# Nothing but the C library and the loader may be needed at run time.
for bin in "${bins[@]}"; do
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  for lib in $needed; do
    case $lib in
      libc.so.6|libm.so.6|ld-linux-x86-64.so.2) ;;
      *) echo "package: error: $bin needs $lib; only the C library is allowed (GCSNAP_PORTABLE)" >&2; exit 1 ;;
    esac
  done
done
glibc=$(objdump -T "${bins[@]}" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
echo "package: gcsnap $version needs glibc >= $glibc"

mkdir -p "$dist"
rm -f "$dist"/gcsnap-*-linux-x64.tar.gz "$dist"/gcsnap_*_amd64.deb "$dist"/gcsnap*.nupkg "$dist/glibc.txt"
echo "$glibc" >"$dist/glibc.txt"
(cd "$build" && cpack -G "TGZ;DEB" -B "$build/cpack" -D CPACK_DEBIAN_PACKAGE_DEPENDS="libc6 (>= $glibc)" >"$build/cpack.log") ||
  { cat "$build/cpack.log" >&2; echo "package: error: cpack failed" >&2; exit 1; }
mv "$build/cpack/gcsnap-$version-linux-x64.tar.gz" "$build/cpack/gcsnap_${version}_amd64.deb" "$dist/"

# The .NET tool packages carry the same stripped files as the tarball.
stage=$build/nuget-stage
rm -rf "$stage" && mkdir -p "$stage"
tar -xzf "$dist/gcsnap-$version-linux-x64.tar.gz" -C "$stage"
rids=("linux-x64=$stage/gcsnap-$version-linux-x64/bin")
cp "$stage/gcsnap-$version-linux-x64/lib/gcsnap/libgcsnap_profiler.so" "$stage/gcsnap-$version-linux-x64/bin/"

windows=$root/scripts/build-windows.sh
# Only on request: the Windows build cannot record yet (docs/windows.md), so no win-x64 tool
# package is made by default, and CI's Windows stage builds it once, not twice.
if [ -x "$windows" ] && [ "${GCSNAP_PACKAGE_WINDOWS:-0}" = 1 ]; then
  echo "package: the Windows build (scripts/build-windows.sh)"
  GCSNAP_DIST_DIR=$dist "$windows"
  # The Windows build leaves its zip in dist/; its files become the win-x64 tool package.
  zip=$dist/gcsnap-$version-win-x64.zip
  exe=
  if [ -f "$zip" ]; then
    mkdir -p "$stage/win-x64" && (cd "$stage/win-x64" && cmake -E tar xf "$zip")
    exe=$(find "$stage/win-x64" -name gcsnap.exe | head -1)
  fi
  if [ -n "$exe" ]; then
    rids+=("win-x64=$(dirname "$exe")")
  else
    echo "package: no gcsnap.exe in $zip: no win-x64 tool package" >&2
  fi
fi

cmake -DVERSION="$version" -DOUT_DIR="$dist" -DWORK_DIR="$build/nuget" -DREADME="$root/README.md" \
      -DLICENSE_EXPRESSION="$licence" -DRIDS="$(IFS=';'; echo "${rids[*]}")" \
      -DDESCRIPTION="$(sed -n 's/^set(GCSNAP_DESCRIPTION "\(.*\)")$/\1/p' "$root/cmake/GcsnapPackaging.cmake")." \
      -P "$root/cmake/GcsnapNuget.cmake" | sed 's/^-- /package: /'
echo "package: wrote $dist:"
(cd "$dist" && ls -l | sed -n 's/^[^ ]* *[^ ]* *[^ ]* *[^ ]* *\([0-9]*\) .* \(.*\)$/  \2  \1 bytes/p')
