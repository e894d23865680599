#!/usr/bin/env bash
# `gcsnap export --to pprof --profile alloc` read by `go tool pprof` (Debian's golang-go) on the
# recording of support/alloc_rounds.hpp: 29 samples of 32-byte objects, 17 alive at the last GC.
# The totals equal the estimates of format-spec.md §6.18 (each sample stands for 1/(1 - q^32)
# objects, q = 1 - 1/102400; each stack's value rounded), the stacks keep every frame innermost
# first, and only the items' stacks hold live bytes. Without `go` the test fails.
#   alloc_pprof.sh GCSNAP ALLOC.snap WORK_DIR
set -euo pipefail
gcsnap=$1 snap=$2 work=$3
command -v go >/dev/null || { echo "alloc_pprof: 'go' is not on PATH (golang-go has go tool pprof)"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
export HOME=$work GOCACHE=$work/gocache
out=$work/alloc.pb.gz
"$gcsnap" export "$snap" --to pprof --profile alloc -o "$out" 2>"$work/stderr"
grep -q "allocation profile of 29 samples (17 alive at GC 5) in 5 stacks" "$work/stderr" || { cat "$work/stderr"; exit 1; }
pprof() { go tool pprof "$@" 2>/dev/null; }
fail() { echo "alloc_pprof: $*"; exit 1; }

raw=$(pprof -raw "$out")
grep -q "alloc_objects/count alloc_space/bytes\(\[dflt\]\)\? inuse_objects/count inuse_space/bytes" <<<"$raw" ||
  fail "sample types missing in: $raw"
# One sample per stack: per-sample value n/(1 - q^32), rounded per stack (12, 2, 13, 1, 1 samples).
expected() {  # SAMPLE_COUNTS... -> the sum of the rounded values of each stack (objects, then bytes)
  python3 -c 'import sys,math
p=-math.expm1(32*math.log1p(-1/102400))
n=[int(a) for a in sys.argv[1:]]
print(sum(round(k/p) for k in n), sum(round(32*k/p) for k in n))' "$@"
}
total() { pprof -top "-sample_index=$1" -unit=byte "$out" | sed -n 's/.* of \([0-9]*\)[A-Za-z]* total.*/\1/p' | head -1; }
read -r alloc_objects alloc_bytes <<<"$(expected 12 2 13 1 1)"
read -r live_objects live_bytes <<<"$(expected 12 2 1 1 1)"
[ "$(total alloc_objects)" = "$alloc_objects" ] || fail "alloc_objects total $(total alloc_objects), expected $alloc_objects"
[ "$(total alloc_space)" = "$alloc_bytes" ] || fail "alloc_space total $(total alloc_space), expected $alloc_bytes"
[ "$(total inuse_objects)" = "$live_objects" ] || fail "inuse_objects total $(total inuse_objects), expected $live_objects"
[ "$(total inuse_space)" = "$live_bytes" ] || fail "inuse_space total $(total inuse_space), expected $live_bytes"
# The real stack: the runtime's List`1.Add under App.Cache.Add under App.Worker.Run.
traces=$(pprof -traces -sample_index=alloc_objects "$out")
grep -A3 'System.Collections.Generic.List`1.Add' <<<"$traces" | tr -s ' \n' ' ' |
  grep -q 'List`1.Add App.Cache.Add App.Worker.Run' || fail "stack of App.Cache.Add missing in: $traces"
grep -q '<native 0x7f00dead>' <<<"$traces" || fail "native frame missing in: $traces"
grep -q '<unknown site>' <<<"$traces" || fail "unknown stack missing in: $traces"
# App.Worker.Run allocated 13 samples' worth, of which one item is still alive.
read -r run_objects _ <<<"$(expected 13)"
read -r run_live _ <<<"$(expected 1)"
flat() { pprof -top "-sample_index=$1" "$out" | awk -v f="$2" '$6 == f { print $1 }'; }
[ "$(flat alloc_objects App.Worker.Run)" = "$run_objects" ] || fail "App.Worker.Run alloc $(flat alloc_objects App.Worker.Run), expected $run_objects"
[ "$(flat inuse_objects App.Worker.Run)" = "$run_live" ] || fail "App.Worker.Run inuse $(flat inuse_objects App.Worker.Run), expected $run_live"
echo "alloc_pprof: ok"
