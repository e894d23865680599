#!/bin/sh
# Progress on a terminal (docs/cli.md "gcsnap index"): under a pseudo-terminal the stage lines
# appear on stderr; with stderr a file nothing is printed there, even when stdout is the terminal.
# `script` (util-linux, Debian's Essential bsdutils) gives the command a pty.
# Usage: index_progress.sh GCSNAP RECORDING WORK_DIR
set -eu
g=$1
dir=$3/index-progress
fail() { echo "index_progress: $*" >&2; exit 1; }
command -v script >/dev/null 2>&1 || fail "'script' (util-linux) is not installed: scripts/setup.sh installs bsdutils"
rm -rf "$dir"
mkdir -p "$dir"
snap=$dir/rec.snap
cp "$2" "$snap"
# Run "$@" with stdin, stdout and stderr on a new pty; the terminal's bytes go to $dir/tty.txt.
on_tty() {
  cmd=""
  for a in "$@"; do cmd="$cmd '$a'"; done
  SHELL=/bin/sh script -qec "$cmd" /dev/null </dev/null >"$dir/tty.txt" || fail "under a pty, exit $?:$cmd"
}
expect_stages() {  # expect_stages WHAT STAGE...: each stage line is on the terminal
  what=$1
  shift
  for stage in "$@"; do
    grep -qF "gcsnap: $snap: $stage..." "$dir/tty.txt" || { cat "$dir/tty.txt" >&2; fail "$what: no '$stage' line on the terminal"; }
  done
}

# gcsnap index: every stage, then the table.
on_tty "$g" index "$snap"
expect_stages "index" "decoding objects" "building the graph" "building the reverse graph" "computing dominators" \
  "counting types" "writing the index"
grep -q "built" "$dir/tty.txt" || fail "index: no table on the terminal"
[ -f "$snap.1.gcidx" ] || fail "index: no index file"

# stdout to a file, stderr still the terminal: the stages stay on the terminal, out of stdout.
rm -f "$snap".*.gcidx
on_tty sh -c "exec \"\$0\" index \"\$1\" >\"\$2\"" "$g" "$snap" "$dir/stdout.txt"
expect_stages "index >file" "decoding objects" "writing the index"
grep -q "built" "$dir/stdout.txt" || fail "index >file: no table in stdout"
if grep -q "gcsnap: " "$dir/stdout.txt"; then fail "index >file: a stage line went to stdout"; fi

# A command that builds the index on its way (types) shows the stages too.
rm -f "$snap".*.gcidx
on_tty "$g" types "$snap"
expect_stages "types" "decoding objects" "computing dominators" "writing the index"

# stderr a file, stdout the terminal: nothing in the file (the test is isatty(stderr)).
rm -f "$snap".*.gcidx
on_tty sh -c "exec \"\$0\" index \"\$1\" 2>\"\$2\"" "$g" "$snap" "$dir/stderr.txt"
[ -s "$dir/stderr.txt" ] && { cat "$dir/stderr.txt" >&2; fail "index 2>file: stderr is not empty"; }
grep -q "built" "$dir/tty.txt" || fail "index 2>file: no table on the terminal"
if grep -q "decoding objects" "$dir/tty.txt"; then fail "index 2>file: a stage line reached the terminal"; fi
[ -f "$snap.1.gcidx" ] || fail "index 2>file: no index file"
rm -rf "$dir"
echo "index_progress: ok"
