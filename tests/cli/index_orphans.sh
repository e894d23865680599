#!/bin/sh
# Index files an earlier recording at the same path left (FILE.N.gcidx for a GC N the recording
# has not) are removed when an index of the recording is built or used; others are kept.
# Usage: index_orphans.sh GCSNAP RECORDING WORK_DIR
set -eu
g=$1
dir=$3/index-orphans
fail() { echo "index_orphans: $*" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
cp "$2" "$dir/app.snap"
cd "$dir"
: >app.snap.999.gcidx
: >app.snap.x.gcidx
: >other.snap.999.gcidx
"$g" types app.snap >/dev/null 2>err || fail "types failed: $(cat err)"
[ ! -e app.snap.999.gcidx ] || fail "types left the index of GC 999, which the recording has not"
[ -e app.snap.7.gcidx ] || fail "types wrote no index of the last GC (7)"
[ -e app.snap.x.gcidx ] || fail "a file not named FILE.N.gcidx was removed"
[ -e other.snap.999.gcidx ] || fail "another recording's index was removed"
"$g" types app.snap --no-cache >/dev/null 2>err || fail "types --no-cache failed: $(cat err)"
: >app.snap.1000.gcidx
"$g" types app.snap --no-cache >/dev/null 2>err || fail "types --no-cache failed: $(cat err)"
[ -e app.snap.1000.gcidx ] || fail "--no-cache touched the index files"
"$g" index app.snap --all >out 2>err || fail "index --all failed: $(cat err)"
[ ! -e app.snap.1000.gcidx ] || fail "index --all left the index of GC 1000"
grep -q '^note: removed 1 analysis index file(s) of GCs this recording does not have' out ||
  fail "index --all does not say it removed one: $(cat out)"
[ "$(ls app.snap.*.gcidx | wc -l)" -eq 8 ] || fail "not one index per walk (7) and app.snap.x.gcidx: $(ls)"
echo "index_orphans: ok"
