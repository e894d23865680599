#!/bin/sh
# diff reads B's shortest-path tree, A's columns (in blocks: B is the GC after A) and B's addresses and sizes (in blocks, as it
# matches) from the analysis indexes apart from the rest (format-spec.md §12.4): a bit flipped
# in any makes it answer from the recording, with the same bytes as --no-cache, and never from
# the damaged array.
# Usage: diff_index_damage.sh GCSNAP RECORDING WORK_DIR (RECORDING: two walks, GC 1 and GC 2)
set -eu
g=$1
snap=$3/diff-damage.snap
fail() { echo "diff_index_damage: $*" >&2; exit 1; }
# Both indexes anew and sound: `index` tells an index up to date from its header alone, so the
# damage of a case before would stay (and the diff answer from the recording for it, whatever
# it does with the array this case damages).
fresh_indexes() {
  rm -f "$snap".*.gcidx
  "$g" index "$snap" --all >/dev/null
  "$g" index "$snap" --check >/dev/null || fail "the rebuilt indexes do not check"
}
flip() {  # flip bit 2 of the byte at offset $2 of file $1
  byte=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
cp "$2" "$snap"
rm -f "$snap".*.gcidx
plain=$("$g" diff "$snap" --format csv --no-cache)
[ -n "$plain" ] || fail "diff printed nothing"
"$g" index "$snap" --all >/dev/null
[ "$("$g" diff "$snap" --format csv)" = "$plain" ] || fail "diff differs with valid indexes"
# The last byte of B's index: its shortest-path tree.
size=$(wc -c <"$snap.2.gcidx")
flip "$snap.2.gcidx" $((size - 1))
if "$g" index "$snap:2" --check >/dev/null 2>&1; then fail "--check missed the damaged tree"; fi
[ "$("$g" diff "$snap" --format csv)" = "$plain" ] || fail "diff differs with a damaged tree in B's index"
# The first array of A's index: its addresses (after the header and directory, 520 bytes).
fresh_indexes
[ "$("$g" diff "$snap" --format csv)" = "$plain" ] || fail "diff differs with rebuilt indexes"
flip "$snap.1.gcidx" 530
if "$g" index "$snap:1" --check >/dev/null 2>&1; then fail "--check missed the damaged addresses"; fi
[ "$("$g" diff "$snap" --format csv)" = "$plain" ] || fail "diff differs with damaged addresses in A's index"
# The last byte of A's type ids (its third array; the directory's lengths from offset 384), which
# the diff reads in blocks with A's other columns as it follows them to B, the GC after A (told
# damaged only at the end: it answers again from the recording).
fresh_indexes
set -- $(od -An -tu8 -j384 -N24 "$snap.1.gcidx")
flip "$snap.1.gcidx" $((520 + $1 + $2 + $3 - 1))
if "$g" index "$snap:1" --check >/dev/null 2>&1; then fail "--check missed the damaged type ids of A"; fi
[ "$("$g" diff "$snap" --format csv)" = "$plain" ] || fail "diff differs with damaged type ids in A's index"
# The first array of B's index: its addresses, which the diff reads in blocks as it matches
# (told damaged only then: it answers again from the recording).
fresh_indexes
flip "$snap.2.gcidx" 530
if "$g" index "$snap:2" --check >/dev/null 2>&1; then fail "--check missed the damaged addresses of B"; fi
[ "$("$g" diff "$snap" --format csv)" = "$plain" ] || fail "diff differs with damaged addresses in B's index"
[ "$("$g" diff "$snap" --format json)" = "$("$g" diff "$snap" --format json --no-cache)" ] ||
  fail "diff --format json differs with damaged addresses in B's index"
echo "diff_index_damage: ok"
