# Sourced by the bench scripts: the two build steps they all share. Expects ROOT, BUILD, OUT
# and a log() function from the script that sources it.

# gcsnap and the shim, Release, unless BUILD_DIR names a tree that already has both.
bench_build_gcsnap() {
  if [ -z "${BUILD_DIR:-}" ] || [ ! -x "$BUILD/bin/gcsnap" ] || [ ! -f "$BUILD/bin/libgcsnap_profiler.so" ]; then
    log "building gcsnap and the shim in $BUILD (Release, -j2)"
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGCSNAP_BUILD_TESTS=OFF >"$OUT/cmake.log" 2>&1
    cmake --build "$BUILD" -j2 --target gcsnap_cli gcsnap_profiler >"$OUT/build.log" 2>&1 \
      || { tail -30 "$OUT/build.log" >&2; exit 1; }
  fi
  GCSNAP=$BUILD/bin/gcsnap
  export GCSNAP_SHIM=${GCSNAP_SHIM:-$BUILD/bin/libgcsnap_profiler.so}
}

# bench_build_app NAME: builds bench/NAME/NAME.csproj into $OUT/NAME.
bench_build_app() {
  log "building bench/$1"
  dotnet build "$ROOT/bench/$1/$1.csproj" -c Release -o "$OUT/$1" >"$OUT/app-build.log" 2>&1 \
    || { tail -20 "$OUT/app-build.log" >&2; exit 1; }
}
