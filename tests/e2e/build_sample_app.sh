#!/usr/bin/env bash
# Build an e2e C# app: build_sample_app.sh SOURCE_DIR OUT_DIR ARTIFACTS_DIR [DLL_NAME [TFM]]
# (DLL_NAME: the assembly it must produce, Gcsnap.Sample.dll by default; TFM: the target
# framework, e.g. net8.0 for the runtime matrix, else the project's own).
# Without dotnet this fails (it never skips): the end-to-end tests need the .NET SDK.
set -euo pipefail
src=$1 out=$2 artifacts=$3 dll_name=${4:-Gcsnap.Sample.dll} tfm=${5:-}
tfm_opts=()
[ -z "$tfm" ] || tfm_opts=(-p:GcsnapTargetFramework="$tfm")
if ! command -v dotnet >/dev/null 2>&1; then
  echo "e2e: error: 'dotnet' is not on PATH; the end-to-end tests need the .NET SDK (net10.0)" >&2
  exit 1
fi
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
# --artifacts-path keeps obj/ out of the source tree, so parallel build dirs never collide.
if ! log=$(dotnet build "$src" -c Release "${tfm_opts[@]}" -o "$out" --artifacts-path "$artifacts" 2>&1); then
  printf '%s\n' "$log" >&2
  echo "e2e: error: dotnet build of $src failed" >&2
  exit 1
fi
test -f "$out/$dll_name" || { echo "e2e: error: $out/$dll_name was not built" >&2; exit 1; }
echo "e2e: built $out/$dll_name"
