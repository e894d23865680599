#!/bin/sh
# A damaged analysis index (format-spec.md §12.4) is never trusted: a bit flipped in an array
# a command decodes makes it rebuild the index; one in an array it does not decode lets it answer
# (the same bytes), and `gcsnap index --check` sees the damage in any array. `gcsnap index`
# tells an index up to date from its header and directory alone (items 1-3): it leaves damage
# in an array to --check and to the first command that decodes the array.
# Usage: index_damage.sh GCSNAP RECORDING WORK_DIR
set -eu
g=$1
snap=$3/index-damage.snap
ix=$snap.1.gcidx
fail() { echo "index_damage: $*" >&2; exit 1; }
flip() {  # flip bit 2 of the byte at offset $1 of the index
  byte=$(od -An -tu1 -j"$1" -N1 "$ix" | tr -d ' ')
  printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$ix" bs=1 seek="$1" conv=notrunc 2>/dev/null
}
# array_at K: where array K's coded bytes start (format-spec.md §12.3: after the 384-byte
# header and the directory of 17 coded lengths, one after another; array_at 17 is where the
# holder table, array 18, starts: the end of the shortest-path tree)
array_at() {
  at=520 k=0
  while [ "$k" -lt "$1" ]; do
    at=$((at + $(od -An -tu8 -j$((384 + 8 * k)) -N8 "$ix" | tr -d ' ')))
    k=$((k + 1))
  done
  echo "$at"
}
cp "$2" "$snap"
rm -f "$snap".*.gcidx
"$g" index "$snap" >/dev/null
"$g" index "$snap" --check >/dev/null || fail "a fresh index does not pass --check"
types=$("$g" types "$snap" --no-cache)
dominators=$("$g" dominators "$snap" --no-cache)
path_type=$("$g" path "$snap" --type ListNode --limit 2 --format csv --no-cache)
top=$("$g" dominators "$snap" --top 5 --format csv --no-cache)

# The first array (addresses, after its first frame's length): types does not decode it.
flip $(($(array_at 0) + 6))
[ "$("$g" types "$snap")" = "$types" ] || fail "types differs with damage in an array it does not use"
if "$g" index "$snap" --check >/dev/null 2>&1; then fail "--check missed damaged addresses"; fi
"$g" index "$snap" --check 2>/dev/null | grep -q "damaged" || fail "--check does not say damaged"
# dominators decodes it: rebuilt, same answer, and the index is whole again.
[ "$("$g" dominators "$snap")" = "$dominators" ] || fail "dominators differs after the rebuild"
"$g" index "$snap" --check >/dev/null || fail "dominators did not rebuild the damaged index"

# The holder table (array 18, the file's end), which only dominators --by type reads: types
# answers, --check sees it, and dominators --by type answers the same (computed), rebuilding it.
by_type=$("$g" dominators "$snap" --by type --no-cache)
flip $(($(wc -c <"$ix") - 1))
[ "$("$g" types "$snap")" = "$types" ] || fail "types differs with damage in the holder table"
if "$g" index "$snap" --check >/dev/null 2>&1; then fail "--check missed a damaged holder table"; fi
[ "$("$g" dominators "$snap" --by type)" = "$by_type" ] || fail "dominators --by type differs with a damaged holder table"
"$g" index "$snap" --check >/dev/null || fail "dominators --by type did not rebuild a damaged holder table"
[ "$("$g" dominators "$snap" --by type)" = "$by_type" ] || fail "dominators --by type differs from the holder table"
# path --type --limit N reads the nearest instances at array 18's end (minor 2): damaged, it
# answers the same from the type ids and leaves the damage to the commands that decode the table.
flip $(($(wc -c <"$ix") - 1))
[ "$("$g" path "$snap" --type ListNode --limit 2 --format csv)" = "$path_type" ] ||
  fail "path --type differs with damaged nearest instances"
if "$g" index "$snap" --check >/dev/null 2>&1; then fail "--check missed damaged nearest instances"; fi
"$g" dominators "$snap" --by type >/dev/null
"$g" index "$snap" --check >/dev/null || fail "dominators --by type did not rebuild damaged nearest instances"
# dominators --top ranks from the largest heads at array 18's end (minor 3): damaged, it answers
# the same from the dominator tree, and dominators --by type rebuilds the table.
[ "$("$g" dominators "$snap" --top 5 --format csv)" = "$top" ] || fail "dominators --top differs from the largest heads"
flip $(($(wc -c <"$ix") - 1))
[ "$("$g" dominators "$snap" --top 5 --format csv)" = "$top" ] || fail "dominators --top differs with damaged largest heads"
if "$g" index "$snap" --check >/dev/null 2>&1; then fail "--check missed damaged largest heads"; fi
"$g" dominators "$snap" --by type >/dev/null
"$g" index "$snap" --check >/dev/null || fail "dominators --by type did not rebuild damaged largest heads"

# The tree's last byte (the shortest-path tree, which only diff and path --type decode): types answers, --check sees it,
# `gcsnap index` decodes no array to say the index is up to date, and path --type rebuilds it.
flip $(($(array_at 17) - 1))
[ "$("$g" types "$snap")" = "$types" ] || fail "types differs with damage in the shortest-path tree"
if "$g" index "$snap" --check >/dev/null 2>&1; then fail "--check missed a damaged shortest-path tree"; fi
"$g" index "$snap" | grep -q "up to date" || fail "gcsnap index decoded an array to tell the index's status"
if "$g" index "$snap" --check >/dev/null 2>&1; then fail "gcsnap index rebuilt an index whose header is valid"; fi
[ "$("$g" path "$snap" --type ListNode --limit 2 --format csv)" = "$path_type" ] ||
  fail "path --type differs after the rebuild"
"$g" index "$snap" --check >/dev/null || fail "path --type did not rebuild a damaged shortest-path tree"

# The type histogram (array 16, the one before the tree): types decodes it and rebuilds.
flip $(($(array_at 15) + 8))
if "$g" index "$snap" --check >/dev/null 2>&1; then fail "--check missed a damaged histogram"; fi
[ "$("$g" types "$snap")" = "$types" ] || fail "types differs after the rebuild"
"$g" index "$snap" --check >/dev/null || fail "types did not rebuild the damaged index"
# path --type --limit N reads pieces (format-spec.md §12.4 item 7): the type ids, the shortest-path
# tree, the node columns and forward graph of the paths' objects, never the reverse graph. A bit
# flipped in the reverse sources (array 8) leaves its answer the same and the damage in place
# (nothing read it); dominators --include-weak, which decodes the graph both ways, then rebuilds the index.
flip $(($(array_at 7) + 8))
[ "$("$g" path "$snap" --type ListNode --limit 2 --format csv)" = "$path_type" ] ||
  fail "path --type differs with damage in an array it does not read"
if "$g" index "$snap" --check >/dev/null 2>&1; then fail "path --type read the reverse graph (the index was rebuilt)"; fi
"$g" dominators "$snap" --include-weak >/dev/null
"$g" index "$snap" --check >/dev/null || fail "dominators --include-weak did not rebuild damaged reverse sources"
# Damage in the tree it reads: the answer is the same, from the index rebuilt.
flip $(($(array_at 17) - 1))
[ "$("$g" path "$snap" --type ListNode --limit 2 --format csv)" = "$path_type" ] ||
  fail "path --type differs with damage in the shortest-path tree"
"$g" index "$snap" --check >/dev/null || fail "path --type did not rebuild a damaged shortest-path tree"
echo "index_damage: ok"
