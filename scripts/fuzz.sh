#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan + UBSan + fuzzer coverage) and fuzz each one.
#
#   scripts/fuzz.sh [SECONDS]            fuzz every target for SECONDS each (default 60);
#                                        a long run: scripts/fuzz.sh 3600
#   options: --target NAME (only this target; repeatable), --build-dir DIR (default build-fuzz),
#            --build-only, --no-build, --jobs N (build jobs, default 2)
#
# Seeds: the golden files (tests/golden/*.snap) for fuzz_open, every section of them for
# fuzz_decoders, plus the committed crash regressions (tests/reliability/regressions/<target>/).
# The growing corpus is kept in BUILD_DIR/corpus/<target>/. A crash leaves its input in
# BUILD_DIR/artifacts/ and fails the script: copy it into tests/reliability/regressions/<target>/
# (the g++ regression driver then runs it in every ctest run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
seconds=60
targets=()
do_build=1
do_run=1
jobs=2
while (($#)); do
  case $1 in
    --target) targets+=("$2"); shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --build-only) do_run=0; shift ;;
    --no-build) do_build=0; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) seconds=$1; shift ;;
  esac
done
((${#targets[@]})) || targets=(fuzz_open fuzz_open_fixsum fuzz_decoders fuzz_index)

clangxx=$(command -v clang++-14 || command -v clang++ || true)
if [ -z "$clangxx" ]; then
  echo "fuzz.sh: clang++ not found (scripts/setup.sh installs clang-14 and libclang-rt-14-dev)" >&2
  exit 2
fi

if ((do_build)); then
  flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
  cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$clangxx" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DGCSNAP_FUZZ=ON -DGCSNAP_BUILD_SHIM=OFF -DGCSNAP_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build" -j"$jobs" --target "${targets[@]}" make_decoder_seeds make_index_seeds >/dev/null
fi
((do_run)) || exit 0

rel=$root/tests/reliability
mkdir -p "$build/artifacts"
status=0
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  seeds=$build/seeds/$t
  mkdir -p "$corpus" "$seeds" "$rel/regressions/$t"
  case $t in
    fuzz_open*) cp "$root"/tests/golden/*.snap "$seeds"/ 2>/dev/null || true ;;
    fuzz_decoders) "$build/tests/reliability/make_decoder_seeds" "$seeds" "$root"/tests/golden/*.snap "$rel"/regressions/fuzz_open/* >/dev/null ;;
    fuzz_index) "$build/tests/reliability/make_index_seeds" "$seeds" "$root"/tests/golden/*.snap >/dev/null ;;
  esac
  log=$build/$t.log
  echo "fuzz.sh: $t for ${seconds}s (corpus $corpus, log $log)"
  set +e
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    "$build/tests/reliability/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
    "$corpus" "$seeds" "$rel/regressions/$t" >"$log" 2>&1
  rc=$?
  set -e
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|^#[0-9]+.*DONE" "$log" | sed "s/^/  $t: /" || true
  if ((rc != 0)); then
    echo "fuzz.sh: $t FAILED (exit $rc); crash input in $build/artifacts/:" >&2
    ls -1 "$build/artifacts" | grep "^$t-" | sed 's/^/  /' >&2 || true
    grep -E "ERROR|SUMMARY|runtime error" "$log" | head -5 | sed 's/^/  /' >&2 || true
    status=1
  fi
done
exit $status
