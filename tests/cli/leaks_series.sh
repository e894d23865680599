#!/bin/sh
# `gcsnap leaks` over a synthetic series (gcsnap_bench series: 10 heap walks of about 100 k
# objects with churn and a planted leak) gives the answer recorded in golden/leaks_series_100k.*
# (rewritten when a suspect's members came to be followed by identity at every walk, issue
# 46): the same suspects, ranks, series and group count, byte for byte, from the recording
# alone and from the walks' analysis indexes.
# Usage: leaks_series.sh GCSNAP BENCH_SMOKE WORK_DIR GOLDEN_DIR
set -eu
g=$1
dir=$3/leaks-series
golden=$4
fail() { echo "leaks_series: $*" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
"$2" series 10 100000 series.snap >/dev/null
grep -q '"type": "App.Leak.RequestEntry"' "$golden/leaks_series_100k.json" || fail "the golden answer misses the planted leak"
check() {  # check NAME ARGS...: gcsnap leaks series.snap ARGS... prints golden/leaks_series_100k.NAME
  name=$1
  shift
  "$g" leaks series.snap "$@" >out.$name 2>err.$name || fail "leaks $* failed: $(cat err.$name)"
  cmp -s out.$name "$golden/leaks_series_100k.$name" || {
    diff "$golden/leaks_series_100k.$name" out.$name | head -20 >&2
    fail "leaks $* differs from golden/leaks_series_100k.$name"
  }
}
check json --no-cache --format json
check txt --no-cache
"$g" index series.snap --all >/dev/null
[ -f series.snap.10.gcidx ] || fail "index --all wrote no index for the 10th walk"
check json --format json
check txt
