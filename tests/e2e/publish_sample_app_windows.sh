#!/usr/bin/env bash
# Publish an e2e C# app as a self-contained win-x64 program (app.exe) for the Wine tests:
# publish_sample_app_windows.sh SOURCE_DIR OUT_DIR ARTIFACTS_DIR [EXE_NAME [MSBUILD_ARGS...]]
# The runtime and apphost packs (Microsoft.NETCore.App.Runtime.win-x64, .Host.win-x64) come
# from NuGet on the first run (about 70 MB); OUT_DIR is kept and reused while it is newer than
# the sources. Without dotnet this fails (it never skips).
set -euo pipefail
src=$1 out=$2 artifacts=$3 exe_name=${4:-Gcsnap.Sample.exe}
shift $(($# < 4 ? $# : 4))  # what is left: extra arguments of dotnet publish
if ! command -v dotnet >/dev/null 2>&1; then
  echo "e2e: error: 'dotnet' is not on PATH; the Windows end-to-end tests need the .NET SDK (net10.0)" >&2
  exit 1
fi
if [ -f "$out/$exe_name" ] && [ -z "$(find "$src" -newer "$out/$exe_name" -type f -print -quit)" ]; then
  echo "e2e: $out/$exe_name is up to date"
  exit 0
fi
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
start=$SECONDS
if ! log=$(dotnet publish "$src" -c Release -r win-x64 --self-contained -p:UseAppHost=true \
             -o "$out" --artifacts-path "$artifacts" "$@" 2>&1); then
  printf '%s\n' "$log" >&2
  echo "e2e: error: dotnet publish -r win-x64 of $src failed" >&2
  exit 1
fi
test -f "$out/$exe_name" || { echo "e2e: error: $out/$exe_name was not published" >&2; exit 1; }
touch "$out/$exe_name"
echo "e2e: published $out/$exe_name ($((SECONDS - start)) s)"
