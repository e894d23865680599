#!/usr/bin/env bash
# The runtime matrix's fixture: build_runtimes.sh SRC_DIR OUT_DIR ARTIFACTS_DIR.
# Provisions the .NET 8, 9, 10 and 11 roots (scripts/runtimes.sh, cached) and builds the oracle
# app for net8.0, the oldest runtime it runs on (the SDK restores the net8.0 targeting pack
# from NuGet); 9, 10 and 11 run it rolled forward. Fails (the matrix never skips) when dotnet,
# NuGet or a pack is missing.
set -euo pipefail
src=$1 out=$2 artifacts=$3
command -v dotnet >/dev/null 2>&1 || { echo "runtimes: error: 'dotnet' is not on PATH; the runtime matrix needs the .NET SDK" >&2; exit 1; }
"$src/../../scripts/runtimes.sh" 8 9 10 11
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
if ! log=$(dotnet build "$src/oracle_app" -c Release -p:GcsnapTargetFramework=net8.0 -o "$out" \
             --artifacts-path "$artifacts" 2>&1); then
  printf '%s\n' "$log" >&2
  echo "runtimes: error: dotnet build of the oracle app for net8.0 failed (the targeting pack comes from NuGet)" >&2
  exit 1
fi
grep -q '"version": "8\.0' "$out/Gcsnap.OracleApp.runtimeconfig.json" ||
  { echo "runtimes: error: $out/Gcsnap.OracleApp.dll does not target net8.0" >&2; exit 1; }
echo "runtimes: built $out/Gcsnap.OracleApp.dll for net8.0"
