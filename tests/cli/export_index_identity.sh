#!/bin/sh
# `gcsnap export --to parquet` reads the objects and references of a walk with an analysis index
# from it piece by piece, and decodes a walk without one whole; the bytes must be the same: with
# no index (the export builds none), with every walk's index (`gcsnap index --all`), against
# --no-cache, and in small row groups. A damaged array of an index fails the export with one
# line naming the file, and writes nothing.
# Usage: export_index_identity.sh GCSNAP WORK_DIR RECORDING...
set -eu
g=$1
work=$2/export-identity
shift 2
fail() { echo "export_index_identity: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
for rec in "$@"; do cp "$rec" "$work/"; done
set --
for rec in "$work"/*.snap; do set -- "$@" "$rec"; done
tables=gcs,objects,references,roots,types

"$g" export "$@" --to parquet --tables $tables -o "$work/decoded" 2>/dev/null
[ -z "$(ls "$work"/*.gcidx 2>/dev/null)" ] || fail "the export wrote an analysis index"
"$g" export "$@" --to parquet --tables $tables --no-cache --row-group-rows 7 -o "$work/decoded-small" 2>/dev/null
for rec in "$@"; do "$g" index "$rec" --all >/dev/null; done
[ "$(ls "$work"/*.gcidx | wc -l)" -ge 4 ] || fail "gcsnap index --all built fewer indexes than walks"
"$g" export "$@" --to parquet --tables $tables -o "$work/kept" 2>/dev/null
"$g" export "$@" --to parquet --tables $tables --no-cache -o "$work/no-cache" 2>/dev/null
"$g" export "$@" --to parquet --tables $tables --row-group-rows 7 -o "$work/kept-small" 2>/dev/null
# Object identity followed in runs of 5 objects: the runs' merge gives the same first_gc and
# first_address as one run per walk.
GCSNAP_IDENTITY_CHUNK=5 "$g" export "$@" --to parquet --tables objects -o "$work/small-runs" 2>/dev/null
# Without the objects table the targets' addresses are looked up in the index's pieces.
"$g" export "$@" --to parquet --tables references -o "$work/references" 2>/dev/null

files=0
for f in $(cd "$work/decoded" && find . -name '*.parquet'); do
  files=$((files + 1))
  [ -s "$work/decoded/$f" ] || fail "$f is empty"
  cmp -s "$work/decoded/$f" "$work/kept/$f" || fail "$f differs when read from the indexes"
  cmp -s "$work/decoded/$f" "$work/no-cache/$f" || fail "$f differs with --no-cache"
  cmp -s "$work/decoded-small/$f" "$work/kept-small/$f" || fail "$f differs in small row groups"
done
for f in $(cd "$work/small-runs" && find . -name '*.parquet'); do
  cmp -s "$work/decoded/$f" "$work/small-runs/$f" || fail "$f differs with identity in runs of 5 objects"
done
[ -n "$(find "$work/small-runs" -name '*.parquet')" ] || fail "no objects written in runs of 5"
for f in $(cd "$work/references" && find . -name '*.parquet'); do
  cmp -s "$work/decoded/$f" "$work/references/$f" || fail "$f differs without the objects table"
done
[ "$files" -eq $((5 * $#)) ] || fail "expected $((5 * $#)) files, found $files"
# Object identity is spilled to temporary files in the output directory, removed at the end.
for out in decoded decoded-small kept no-cache kept-small; do
  [ -z "$(find "$work/$out" -name '.gcsnap-identity-*')" ] || fail "$out: identity spill files left behind"
done
refs=$(find "$work/decoded" -path '*table=references*' -name '*.parquet' -size +1k | wc -l)
[ "$refs" -ge 1 ] || fail "no references file with rows: the comparison would prove little"

# Damage the retained sizes (array 15) of one index: the last byte of its coded bytes (its last
# piece's zstd content checksum), which end where array 16's begin (format-spec.md §12.3).
ix=$(ls "$work"/*.gcidx | head -1)
at=520 k=0
while [ "$k" -lt 15 ]; do
  at=$((at + $(od -An -tu8 -j$((384 + 8 * k)) -N8 "$ix" | tr -d ' ')))
  k=$((k + 1))
done
at=$((at - 1))
byte=$(od -An -tu1 -j"$at" -N1 "$ix" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$ix" bs=1 seek="$at" conv=notrunc 2>/dev/null
rc=0
"$g" export "$@" --to parquet --tables $tables -o "$work/damaged" 2>"$work/damaged.err" || rc=$?
[ "$rc" -eq 3 ] || fail "a damaged index: exit $rc, expected 3"
[ "$(wc -l <"$work/damaged.err")" -eq 1 ] || fail "a damaged index: not one line: $(cat "$work/damaged.err")"
grep -q "analysis index is damaged" "$work/damaged.err" || fail "a damaged index: $(cat "$work/damaged.err")"
[ -z "$(find "$work/damaged" -name '*.parquet' 2>/dev/null)" ] || fail "a damaged index: files were written"
[ -z "$(find "$work/damaged" -name '.gcsnap-identity-*' 2>/dev/null)" ] || fail "a damaged index: spill files left"
echo "export_index_identity: $files files equal with and without the index; a damaged index refused"
