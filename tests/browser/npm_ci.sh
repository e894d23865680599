#!/usr/bin/env bash
# Fixture of the browser tests: restore the pinned npm packages (package-lock.json) into DEST
# with `npm ci`. Quick when DEST already holds this lock file's packages. Without node/npm it
# fails: the tests need them and never skip.
#   npm_ci.sh SRC_DIR DEST_DIR
set -euo pipefail
src=$1 dest=$2
command -v node >/dev/null 2>&1 || { echo "browser tests: 'node' is not on PATH (Node.js 18 or later is needed)" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "browser tests: 'npm' is not on PATH" >&2; exit 1; }
mkdir -p "$dest"
if [ -d "$dest/node_modules" ] && cmp -s "$src/package-lock.json" "$dest/node_modules/.gcsnap-lock"; then
  echo "browser tests: npm packages already restored in $dest"
  exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dest/"
cd "$dest"
# --ignore-scripts: puppeteer (a dependency of @memlab/core) would download a browser of its
# own at install; the tests use the system chromium and memlab's parser only.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
cp package-lock.json node_modules/.gcsnap-lock
