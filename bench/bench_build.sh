# Sourced by the bench scripts: the two build steps they all share. Expects ROOT, BUILD, OUT
# and a log() function from the script that sources it.

# bench_release_build TARGET...: a Release build of the targets in $BUILD, -j2.
bench_release_build() {
  log "building $* in $BUILD (Release, -j2)"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGCSNAP_BUILD_TESTS=OFF >"$OUT/cmake.log" 2>&1
  cmake --build "$BUILD" -j2 --target "$@" >"$OUT/build.log" 2>&1 \
    || { tail -30 "$OUT/build.log" >&2; exit 1; }
}

# gcsnap and the shim, Release, unless BUILD_DIR names a tree that already has both.
bench_build_gcsnap() {
  if [ -z "${BUILD_DIR:-}" ] || [ ! -x "$BUILD/bin/gcsnap" ] || [ ! -f "$BUILD/bin/libgcsnap_profiler.so" ]; then
    bench_release_build gcsnap_cli gcsnap_profiler
  fi
  GCSNAP=$BUILD/bin/gcsnap
  export GCSNAP_SHIM=${GCSNAP_SHIM:-$BUILD/bin/libgcsnap_profiler.so}
}

# gcsnap and gcsnap_bench (the synthetic recordings), for the benches that run no app.
bench_build_tools() {
  if [ -z "${BUILD_DIR:-}" ] || [ ! -x "$BUILD/bin/gcsnap" ] || [ ! -x "$BUILD/bench/gcsnap_bench" ]; then
    bench_release_build gcsnap_cli gcsnap_bench
  fi
  GCSNAP=$BUILD/bin/gcsnap
}

# bench_build_app NAME: builds bench/NAME/NAME.csproj into $OUT/NAME.
bench_build_app() {
  log "building bench/$1"
  dotnet build "$ROOT/bench/$1/$1.csproj" -c Release -o "$OUT/$1" >"$OUT/app-build.log" 2>&1 \
    || { tail -20 "$OUT/app-build.log" >&2; exit 1; }
}
