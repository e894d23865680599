#!/usr/bin/env bash
# Provision private .NET roots for the runtimes gcsnap supports, from NuGet's runtime packs:
#   scripts/runtimes.sh [--aspnet] [MAJOR...]      (MAJOR: 8 9 10 11; default all four)
# Prints one line per runtime: "MAJOR VERSION ROOT". Run an app on it with
#   DOTNET_ROOT=ROOT ROOT/dotnet app.dll
# A root is the SDK's host (dotnet, host/fxr) plus the pack's files under
# shared/Microsoft.NETCore.App/VERSION/ (each pack ships its own createdump and
# libmscordaccore.so, the DAC). --aspnet adds Microsoft.AspNetCore.App from its pack too.
# The installed runtime serves 10 when it is 10.0.x. Cached under GCSNAP_RUNTIMES_DIR
# (default ~/.cache/gcsnap/runtimes): a second run downloads nothing. Idempotent and safe to run
# concurrently (one lock). Fails, with a one-line error, when dotnet or NuGet is not there.
set -euo pipefail
declare -A pinned=([8]=8.0.34 [9]=9.0.23 [10]=10.0.12 [11]=11.0.0)
aspnet=0
majors=()
for arg in "$@"; do
  case $arg in
    --aspnet) aspnet=1 ;;
    8|9|10|11) majors+=("$arg") ;;
    *) echo "runtimes: error: unknown argument '$arg' (expected --aspnet or 8, 9, 10, 11)" >&2; exit 2 ;;
  esac
done
((${#majors[@]})) || majors=(8 9 10 11)
fail() { echo "runtimes: error: $*" >&2; exit 1; }
command -v dotnet >/dev/null 2>&1 || fail "'dotnet' is not on PATH; the runtime packs are restored with the .NET SDK"
host_root=$(dirname "$(readlink -f "$(command -v dotnet)")")
[ -d "$host_root/host/fxr" ] || fail "no host/fxr beside $(command -v dotnet)"
cache=${GCSNAP_RUNTIMES_DIR:-$HOME/.cache/gcsnap/runtimes}
mkdir -p "$cache" || fail "cannot create $cache"
exec 9>"$cache/.lock"
flock 9

# Is VERSION of FRAMEWORK already in ROOT (the installed root or a private one)?
has_framework() { [ -f "$1/shared/$2/$3/.gcsnap-complete" ] || [ -f "$1/shared/$2/$3/$4" ]; }

# Restore the packs of the wanted versions in one throwaway project (NuGet's PackageDownload).
restore_packs() {
  local core=() web=() major proj=$cache/restore items
  for major in "$@"; do
    core+=("[${pinned[$major]}]")
    web+=("[${pinned[$major]}]")
  done
  # One item per package, its versions joined by ';' (NuGet merges items of the same name).
  items="<PackageDownload Include=\"Microsoft.NETCore.App.Runtime.linux-x64\" Version=\"$(IFS=';'; echo "${core[*]}")\" />"
  ((aspnet)) && items+="<PackageDownload Include=\"Microsoft.AspNetCore.App.Runtime.linux-x64\" Version=\"$(IFS=';'; echo "${web[*]}")\" />"
  mkdir -p "$proj"
  cat >"$proj/restore.csproj" <<XML
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>
  <ItemGroup>
    $items
  </ItemGroup>
</Project>
XML
  local log
  log=$(DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet restore "$proj/restore.csproj" \
          --packages "$cache/packages" 2>&1) || { printf '%s\n' "$log" >&2; fail "dotnet restore of the runtime packs failed (NuGet unreachable?)"; }
}

# Copy a pack's managed and native files into ROOT/shared/FRAMEWORK/VERSION.
install_pack() {
  local root=$1 framework=$2 package=$3 version=$4
  local pack=$cache/packages/$package/$version/runtimes/linux-x64 dest=$root/shared/$framework/$version
  [ -d "$pack" ] || fail "$package $version has no runtimes/linux-x64 in $cache/packages"
  rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
  cp "$pack"/lib/net*/* "$dest.tmp/"
  [ -d "$pack/native" ] && cp "$pack"/native/* "$dest.tmp/"
  touch "$dest.tmp/.gcsnap-complete"
  rm -rf "$dest" && mv "$dest.tmp" "$dest"
}

need=()
for major in "${majors[@]}"; do
  version=${pinned[$major]}
  if [ "$major" = 10 ] && has_framework "$host_root" Microsoft.NETCore.App "$version" libcoreclr.so &&
     { ((!aspnet)) || has_framework "$host_root" Microsoft.AspNetCore.App "$version" Microsoft.AspNetCore.dll; }; then
    continue
  fi
  root=$cache/$version
  has_framework "$root" Microsoft.NETCore.App "$version" x &&
    { ((!aspnet)) || has_framework "$root" Microsoft.AspNetCore.App "$version" x; } || need+=("$major")
done
((${#need[@]})) && restore_packs "${need[@]}"
for major in "${majors[@]}"; do
  version=${pinned[$major]}
  root=$cache/$version
  if [[ " ${need[*]} " != *" $major "* ]]; then
    [ "$major" = 10 ] && [ -f "$host_root/shared/Microsoft.NETCore.App/$version/libcoreclr.so" ] && root=$host_root
    echo "$major $version $root"
    continue
  fi
  mkdir -p "$root"
  cp -f "$host_root/dotnet" "$root/dotnet"
  rm -rf "$root/host" && cp -r "$host_root/host" "$root/host"
  has_framework "$root" Microsoft.NETCore.App "$version" x ||
    install_pack "$root" Microsoft.NETCore.App microsoft.netcore.app.runtime.linux-x64 "$version"
  ((aspnet)) && ! has_framework "$root" Microsoft.AspNetCore.App "$version" x &&
    install_pack "$root" Microsoft.AspNetCore.App microsoft.aspnetcore.app.runtime.linux-x64 "$version"
  [ -x "$root/shared/Microsoft.NETCore.App/$version/createdump" ] || fail "$version: createdump is missing from its pack"
  [ -f "$root/shared/Microsoft.NETCore.App/$version/libmscordaccore.so" ] || fail "$version: the DAC is missing from its pack"
  echo "$major $version $root"
done
# The roots hold what is needed; the extracted packs (~130 MB each) are not kept.
((${#need[@]})) && rm -rf "$cache/packages" "$cache/restore"
exit 0
