#!/bin/sh
# The query commands that build an index (types, dominators, path) leave at most 3 index files
# of a recording: building a fourth removes the one written longest ago, never the one just
# built; reading an index removes nothing, `gcsnap index --all` builds every one, and other
# recordings' files are never touched.
# Usage: index_cap.sh GCSNAP RECORDING (7 heap walks) WORK_DIR
set -eu
g=$1
dir=$3/index-cap
fail() { echo "index_cap: $*" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
cp "$2" "$dir/app.snap"
cd "$dir"
: >other.snap.1.gcidx
indexes() { ls app.snap.*.gcidx 2>/dev/null | sed 's/^app\.snap\.\([0-9]*\)\.gcidx$/\1/' | sort -n | tr '\n' ' '; }
for gc in 1 2 3; do "$g" types "app.snap:$gc" >/dev/null 2>err || fail "types app.snap:$gc failed: $(cat err)"; done
[ "$(indexes)" = "1 2 3 " ] || fail "three builds do not leave their three indexes: $(indexes)"
"$g" dominators app.snap:4 >/dev/null 2>err || fail "dominators app.snap:4 failed: $(cat err)"
[ "$(indexes)" = "2 3 4 " ] || fail "a fourth build does not remove the oldest (GC 1): $(indexes)"
"$g" types app.snap:2 >/dev/null 2>err || fail "types app.snap:2 failed: $(cat err)"
[ "$(indexes)" = "2 3 4 " ] || fail "reading GC 2's index removed one: $(indexes)"
"$g" types app.snap:5 --no-cache >/dev/null 2>err || fail "types --no-cache failed: $(cat err)"
[ "$(indexes)" = "2 3 4 " ] || fail "--no-cache touched the index files: $(indexes)"
"$g" types app.snap:5 >/dev/null 2>err || fail "types app.snap:5 failed: $(cat err)"
[ "$(indexes)" = "3 4 5 " ] || fail "building GC 5 does not leave 3, 4 and 5: $(indexes)"
"$g" index app.snap --all >/dev/null 2>err || fail "index --all failed: $(cat err)"
[ "$(indexes)" = "1 2 3 4 5 6 7 " ] || fail "index --all does not keep every walk's index: $(indexes)"
"$g" types app.snap:6 >/dev/null 2>err || fail "types app.snap:6 failed: $(cat err)"
[ "$(indexes)" = "1 2 3 4 5 6 7 " ] || fail "reading an index built by index --all removed one: $(indexes)"
[ -e other.snap.1.gcidx ] || fail "another recording's index was removed"
echo "index_cap: ok"
