#!/bin/sh
# An index large enough that the reader decodes and checks its arrays on two threads (format-spec.md §12.4
# checks, index_read.cpp): every command answers byte-identically from it and without it, and
# damage found by the second thread is refused like any other (the command rebuilds).
# Usage: index_large.sh GCSNAP BENCH_SMOKE WORK_DIR
set -eu
g=$1
dir=$3/index-large
snap=$dir/large.snap
fail() { echo "index_large: $*" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
"$2" write 150000 "$snap" fg >/dev/null
"$g" index "$snap" --all >/dev/null
ix=$snap.2.gcidx
size=$(wc -c <"$ix")
[ "$size" -gt $((2 * 1024 * 1024)) ] || fail "index of $size bytes decodes to less than the two-thread threshold"
addr=$("$g" dominators "$snap" --top 20 --format csv | awk -F, 'NR==21 {print $2}')
type=$("$g" types "$snap" --top 12 --format csv | awk -F, 'NR==13 {print $1}')
[ -n "$addr" ] && [ -n "$type" ] || fail "no address or type to ask about"
same() {  # same ARGS...: the output with the index equals the output from the recording
  with=$("$g" "$@" 2>&1) || true
  without=$("$g" "$@" --no-cache 2>&1) || true
  [ -n "$with" ] || fail "$* printed nothing"
  [ "$with" = "$without" ] || fail "$* differs with and without the index"
}
same types "$snap" --top 10
same dominators "$snap" --top 10
same dominators "$snap" --top 10 --no-fold
# Unfolded from pieces: the nodes in two halves on two threads (split at 131,072), with a filter.
same dominators "$snap" --top 300 --no-fold --format csv
same dominators "$snap" --top 20 --no-fold --filter Item
# Folded from pieces (the type ids and dominators decoded whole, the retained sizes in pieces).
same dominators "$snap" --top 50 --format json
same dominators "$snap" --top 3 --format csv --filter Item
folded=$("$g" dominators "$snap" --top 200 --format csv | awk -F, 'NR > 1 && $4 > 1' | wc -l)
[ "$folded" -gt 0 ] || fail "no folded chain in the first 200 rows: the folded case is not exercised"
same where "$snap" "$addr"
same path "$snap" "$addr"
same path "$snap" --type "$type" --limit 2
# path --type from the index's pieces (a type of many instances, several types by one name,
# none, each format; more than 64 paths from the index read whole) against the recording's answer.
same path "$snap" --type System.String --limit 1
same path "$snap" --type String --limit 64 --format csv
same path "$snap" --type Item1 --limit 3 --format json
same path "$snap" --type Type3 --limit 65 --format csv
same path "$snap" --type "$type" --no-group
same path "$snap" --type NoSuchTypeAnywhere --limit 1
same roots "$snap" --kind handle
same roots "$snap" --type Item1
# diff from both indexes (B's paths from its shortest-path tree), from one (A decoded), from none;
# it never builds an index. Its new objects have paths to show.
same diff "$snap" --top 5 --shapes 3
same diff "$snap" --from 2 --to 1 --format json
diff_out=$("$g" diff "$snap" --top 3 --format csv --table new_objects_by_type)
echo "$diff_out" | grep -q -- '->' || fail "diff shows no retention path of a new object: $diff_out"
# Two recordings (roots matched by content over the index's columns): indexed and not.
cp "$snap" "$dir/other.snap"
same diff "$snap:1" "$dir/other.snap:2"
"$g" index "$dir/other.snap" --all >/dev/null
same diff "$snap:1" "$dir/other.snap:2" --format json
rm -f "$dir"/other.snap*
rm -f "$snap.1.gcidx"
same diff "$snap" --top 5
[ ! -f "$snap.1.gcidx" ] || fail "diff built an index"
"$g" index "$snap" --all >/dev/null
# A bit flipped in the middle of the file (an array of the graph, checked by either thread).
mid=$((size / 2))
byte=$(od -An -tu1 -j"$mid" -N1 "$ix" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$ix" bs=1 seek="$mid" conv=notrunc 2>/dev/null
if "$g" index "$snap" --check >/dev/null 2>&1; then fail "--check missed the damage"; fi
same path "$snap" "$addr"
same dominators "$snap" --top 10 --include-weak
"$g" index "$snap" --check >/dev/null || fail "a command reading every array did not rebuild the index"
# verify trusts a valid index only while the GC's block hashes as it did when the index was
# built: a byte changed in the middle of the block (size and modification time kept, so the
# index's identity still matches) must be found and reported, with or without the index.
"$g" index "$snap" --all >/dev/null
"$g" verify "$snap" >/dev/null || fail "verify fails on a sound recording with its indexes"
same verify "$snap"
# Three quarters into the file: the middle of GC 2's block (two GCs of about the same size),
# away from the 64 KiB at each end that the identity samples (checked below).
at=$(($(wc -c <"$snap") * 3 / 4))
cp -p "$snap" "$dir/stamp"
byte=$(od -An -tu1 -j"$at" -N1 "$snap" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 16)))" | dd of="$snap" bs=1 seek="$at" conv=notrunc 2>/dev/null
touch -r "$dir/stamp" "$snap"
"$g" index "$snap" --gc 2 --check >/dev/null 2>&1 || fail "the index no longer matches its recording's identity (the test needs it to)"
if "$g" verify "$snap" >/dev/null 2>&1; then fail "verify trusted the index over a changed block"; fi
same verify "$snap"
rm -rf "$dir"
echo "index_large: ok"
