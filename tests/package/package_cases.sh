#!/usr/bin/env bash
# The release packages tested the way a user gets them (scripts/package.sh builds them; ctest
# label "package" in its build directory). One case per run:
#   package_cases.sh CASE DIST VERSION SAMPLE_OUT WORK
# DIST holds the packages, SAMPLE_OUT the built sample app (tests/e2e/sample_app), WORK is
# scratch. gcsnap runs with a minimal environment (env -i PATH=/usr/bin:/bin) from folders that
# hold nothing of the build tree or the source checkout. Without dotnet (or dpkg) a case fails.
set -uo pipefail
case_name=$1 dist=$2 version=$3 sample_out=$4 work=$5
work=$work/$case_name
tarball=$dist/gcsnap-$version-linux-x64.tar.gz
deb=$dist/gcsnap_${version}_amd64.deb
minimal=(env -i PATH=/usr/bin:/bin)

fail() { echo "package.$case_name: FAIL: $*" >&2; exit 1; }
show() { [ -s "$1" ] && sed "s|^|  $(basename "$1")\| |" "$1" >&2; return 0; }
need() { command -v "$1" >/dev/null 2>&1 || fail "'$1' is not on PATH: this case needs it"; }

# fresh NAME: an empty folder WORK/NAME with a copy of the sample app in app/; prints its path.
fresh() {
  local dir=$work/$1
  rm -rf "$dir" && mkdir -p "$dir" || fail "cannot make $dir"
  cp -r "$sample_out" "$dir/app" || fail "cannot copy the sample app from $sample_out"
  echo "$dir"
}

# check_record GCSNAP DIR: record the sample with GCSNAP in DIR, then analyse the recording.
check_record() {
  local gcsnap=$1 dir=$2 rc
  (cd "$dir" && "${minimal[@]}" "$gcsnap" record -o rec.snap -- dotnet app/Gcsnap.Sample.dll >app.out 2>rec.err)
  rc=$?
  [ "$rc" -eq 0 ] || { show "$dir/rec.err"; show "$dir/app.out"; fail "$gcsnap record exited $rc"; }
  grep -q '^gcsnap-sample: mode=run .* leaky_items=1000 ' "$dir/app.out" || { show "$dir/app.out"; fail "the app did not run"; }
  grep -q "^gcsnap: recorded [1-9][0-9]* GCs" "$dir/rec.err" || { show "$dir/rec.err"; fail "record did not say what it recorded"; }
  check_analysis "$gcsnap" "$dir" rec.snap
}

# check_analysis GCSNAP DIR FILE: verify FILE, find the sample's 1000 LeakyItems and the static
# that holds them.
check_analysis() {
  local gcsnap=$1 dir=$2 file=$3
  (cd "$dir" && "${minimal[@]}" "$gcsnap" verify "$file" >verify.out 2>&1) || { show "$dir/verify.out"; fail "verify $file failed"; }
  (cd "$dir" && "${minimal[@]}" "$gcsnap" types "$file" --format csv >types.csv 2>&1) || { show "$dir/types.csv"; fail "types $file failed"; }
  grep -q '^Gcsnap\.Sample\.LeakyItem,1000,32000,' "$dir/types.csv" || { show "$dir/types.csv"; fail "types: not the sample's 1000 LeakyItems in $file"; }
  (cd "$dir" && "${minimal[@]}" "$gcsnap" path "$file" --type Gcsnap.Sample.LeakyItem --limit 1 >path.out 2>&1) ||
    { show "$dir/path.out"; fail "path $file failed"; }
  grep -q 'Gcsnap\.Sample\.Scenario\.s_leaky (static)' "$dir/path.out" || { show "$dir/path.out"; fail "path: no path from s_leaky in $file"; }
}

# check_snapshot GCSNAP DIR SHIM: start the sample with no profiler, `gcsnap snapshot` it, check
# that the runtime loaded the profiler library SHIM (the package's own), analyse the snapshot.
check_snapshot() {
  local gcsnap=$1 dir=$2 shim=$3 pid rc ready=0
  mkfifo "$dir/app.in" || fail "mkfifo failed"
  env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH \
    dotnet "$dir/app/Gcsnap.Sample.dll" attach-wait <"$dir/app.in" >"$dir/wait.out" 2>"$dir/wait.err" &
  pid=$!
  exec 3>"$dir/app.in"
  for _ in $(seq 1 600); do
    grep -q '^gcsnap-sample: ready' "$dir/wait.out" 2>/dev/null && { ready=1; break; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  ((ready)) || { exec 3>&-; show "$dir/wait.err"; fail "the sample app never became ready"; }
  (cd "$dir" && "${minimal[@]}" "$gcsnap" snapshot "$pid" -o snap.snap >snap.out 2>&1)
  rc=$?
  grep -F " $shim" "/proc/$pid/maps" >/dev/null
  local loaded=$?
  echo quit >&3; exec 3>&-
  wait "$pid"
  local app_rc=$?
  [ "$rc" -eq 0 ] || { show "$dir/snap.out"; fail "$gcsnap snapshot $pid exited $rc"; }
  [ "$loaded" -eq 0 ] || fail "the app did not load $shim (the package's profiler library)"
  [ "$app_rc" -eq 0 ] || { show "$dir/wait.err"; fail "the app exited $app_rc after the snapshot"; }
  check_analysis "$gcsnap" "$dir" snap.snap
}

# check_binaries BIN LIB: both need only the C library (ldd), LIB exports only DllGetClassObject.
check_binaries() {
  local bin=$1 lib=$2 f exports
  for f in "$bin" "$lib"; do
    ldd "$f" >"$work/ldd.out" 2>&1 || { show "$work/ldd.out"; fail "ldd $f failed"; }
    awk '{print $1}' "$work/ldd.out" | grep -Ev '^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|/lib64/ld-linux-x86-64\.so\.2)$' >"$work/extra.out"
    [ -s "$work/extra.out" ] && { show "$work/ldd.out"; fail "$f needs more than the C library"; }
    grep -q '^	libc\.so\.6 ' "$work/ldd.out" || { show "$work/ldd.out"; fail "ldd lists no libc for $f: not what was expected"; }
  done
  exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBVWR]$/ {print $3}' | sort | tr '\n' ' ')
  [ "$exports" = "DllGetClassObject " ] || fail "$lib exports '$exports', expected only DllGetClassObject"
}

mkdir -p "$work" || fail "cannot make $work"
case $case_name in
  tarball)
    need dotnet
    [ -f "$tarball" ] || fail "$tarball does not exist (scripts/package.sh writes it)"
    dir=$(fresh tarball)
    tar -xzf "$tarball" -C "$dir" || fail "cannot extract $tarball"
    pkg=$dir/gcsnap-$version-linux-x64
    for f in bin/gcsnap lib/gcsnap/libgcsnap_profiler.so share/man/man1/gcsnap.1 share/doc/gcsnap/README.md \
             share/doc/gcsnap/docs/cli.md share/doc/gcsnap/docs/containers.md share/doc/gcsnap/docs/install.md; do
      [ -f "$pkg/$f" ] || fail "the tarball has no $f"
    done
    find "$pkg" -type f | sed "s|^$pkg/||" | grep -Ev '^(bin/gcsnap|lib/gcsnap/libgcsnap_profiler\.so|share/man/man1/gcsnap\.1|share/doc/gcsnap/.*\.(md|png))$' >"$work/unexpected"
    [ -s "$work/unexpected" ] && { show "$work/unexpected"; fail "the tarball holds files it should not"; }
    # Every relative link of the installed pages (another page, an image) is installed too.
    for page in "$pkg"/share/doc/gcsnap/*.md "$pkg"/share/doc/gcsnap/docs/*.md; do
      for target in $(grep -o '](\([^):# ]*\.\(md\|png\)\)' "$page" | sed 's/^](//'); do
        [ -f "$(dirname "$page")/$target" ] || fail "${page#"$pkg"/} links to $target, which is not installed"
      done
    done
    out=$("${minimal[@]}" "$pkg/bin/gcsnap" --version 2>&1) || fail "gcsnap --version failed: $out"
    [ "$out" = "gcsnap $version" ] || fail "gcsnap --version said '$out', expected 'gcsnap $version'"
    check_binaries "$pkg/bin/gcsnap" "$pkg/lib/gcsnap/libgcsnap_profiler.so"
    # The man page names every subcommand that --help lists.
    "${minimal[@]}" "$pkg/bin/gcsnap" --help | sed -n '/^Subcommands:/,$ s/^  \([a-z]\{1,\}\) .*/\1/p' >"$work/subcommands"
    [ "$(wc -l <"$work/subcommands")" -ge 10 ] || { show "$work/subcommands"; fail "gcsnap --help lists too few subcommands"; }
    while read -r sub; do
      grep -qx "\.B $sub" "$pkg/share/man/man1/gcsnap.1" || fail "the man page does not describe '$sub'"
    done <"$work/subcommands"
    check_record "$pkg/bin/gcsnap" "$dir"
    check_snapshot "$pkg/bin/gcsnap" "$dir" "$pkg/lib/gcsnap/libgcsnap_profiler.so"
    ;;
  glibc)
    # The oldest glibc the binaries run on is what docs/install.md states.
    [ -f "$dist/glibc.txt" ] || fail "$dist/glibc.txt does not exist (scripts/package.sh writes it)"
    need=$(cat "$dist/glibc.txt")
    [[ $need =~ ^2\.[0-9]+$ ]] || fail "$dist/glibc.txt says '$need', not a glibc version"
    doc=$(dirname "$0")/../../docs/install.md
    grep -q "glibc $need or newer" "$doc" || fail "docs/install.md does not say 'glibc $need or newer' (the binaries need $need)"
    ;;
  deb)
    need dpkg; need dotnet
    [ -f "$deb" ] || fail "$deb does not exist (scripts/package.sh writes it)"
    if dpkg-query -W -f='${Status}' gcsnap 2>/dev/null | grep -q "ok installed"; then
      fail "a gcsnap package is installed already; this case would replace it (dpkg -r gcsnap first)"
    fi
    [ "$(dpkg-deb -f "$deb" Package)" = gcsnap ] && [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
      fail "$deb is not gcsnap $version"
    dpkg-deb -f "$deb" Depends | grep -Eq '^libc6 \(>= 2\.[0-9]+\)$' || fail "$deb depends on '$(dpkg-deb -f "$deb" Depends)', expected only libc6"
    dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}' >"$work/files"
    grep -qx /usr/bin/gcsnap "$work/files" && grep -qx /usr/lib/gcsnap/libgcsnap_profiler.so "$work/files" ||
      { show "$work/files"; fail "$deb lacks /usr/bin/gcsnap or the profiler library"; }
    dpkg -i "$deb" >"$work/dpkg-i.out" 2>&1 || { show "$work/dpkg-i.out"; dpkg -r gcsnap >/dev/null 2>&1; fail "dpkg -i failed"; }
    trap 'dpkg -r gcsnap >/dev/null 2>&1' EXIT
    out=$("${minimal[@]}" gcsnap --version 2>&1) || fail "gcsnap on PATH after dpkg -i failed: $out"
    [ "$out" = "gcsnap $version" ] || fail "gcsnap --version said '$out'"
    dir=$(fresh deb)
    check_record gcsnap "$dir"
    dpkg -r gcsnap >"$work/dpkg-r.out" 2>&1 || { show "$work/dpkg-r.out"; fail "dpkg -r gcsnap failed"; }
    trap - EXIT
    left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done <"$work/files")
    [ -z "$left" ] || fail "dpkg -r left files behind: $left"
    for d in /usr/lib/gcsnap /usr/share/doc/gcsnap; do [ -e "$d" ] && fail "dpkg -r left $d behind"; done
    dpkg-query -W -f='${Status}' gcsnap 2>/dev/null | grep -q "installed" && fail "dpkg still lists gcsnap: $(dpkg-query -W -f='${Status}' gcsnap)"
    ;;
  dotnet_tool)
    need dotnet
    dir=$(fresh dotnet_tool)
    tools=$dir/tools
    # A NuGet cache of its own: a package of the same version from an earlier build is never used.
    export NUGET_PACKAGES=$dir/nuget-packages DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
    dotnet tool install --tool-path "$tools" --add-source "$dist" gcsnap --version "$version" >"$work/install.out" 2>&1 ||
      { show "$work/install.out"; fail "dotnet tool install failed"; }
    # The command is the native executable itself: no .NET runtime starts in front of gcsnap.
    target=$(readlink "$tools/gcsnap") || fail "$tools/gcsnap is not a link to the native gcsnap"
    [[ $target == *"/gcsnap.linux-x64/$version/tools/net10.0/linux-x64/gcsnap" ]] || fail "$tools/gcsnap points at $target"
    out=$("${minimal[@]}" "$tools/gcsnap" --version 2>&1) || fail "$tools/gcsnap --version failed: $out"
    [ "$out" = "gcsnap $version" ] || fail "$tools/gcsnap --version said '$out'"
    check_record "$tools/gcsnap" "$dir"
    check_snapshot "$tools/gcsnap" "$dir" "$(dirname "$(readlink -f "$tools/gcsnap")")/libgcsnap_profiler.so"
    dotnet tool uninstall --tool-path "$tools" gcsnap >"$work/uninstall.out" 2>&1 || { show "$work/uninstall.out"; fail "dotnet tool uninstall failed"; }
    left=$(find "$tools" -mindepth 1 ! -type d)
    [ -z "$left" ] || fail "dotnet tool uninstall left files behind: $left"
    ;;
  dnx)
    need dotnet
    dir=$(fresh dnx)
    export NUGET_PACKAGES=$dir/nuget-packages DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
    out=$(cd "$dir" && dotnet dnx --source "$dist" "gcsnap@$version" -- --version </dev/null 2>&1) || fail "dotnet dnx gcsnap --version failed: $out"
    [ "$(tail -1 <<<"$out")" = "gcsnap $version" ] || fail "dotnet dnx gcsnap --version said '$out'"
    (cd "$dir" && dotnet dnx --source "$dist" "gcsnap@$version" -- record -o rec.snap -- dotnet app/Gcsnap.Sample.dll </dev/null >app.out 2>rec.err) ||
      { show "$dir/rec.err"; fail "dotnet dnx gcsnap record failed"; }
    grep -q '^gcsnap-sample: mode=run .* leaky_items=1000 ' "$dir/app.out" || { show "$dir/app.out"; fail "the app did not run under dnx"; }
    check_analysis "$(find "$NUGET_PACKAGES" -path '*/linux-x64/gcsnap' -type f | head -1)" "$dir" rec.snap
    ;;
  *) fail "unknown case" ;;
esac
echo "package.$case_name: ok"
