#!/usr/bin/env bash
# Build the ClrMD oracle test's two C# projects: build_oracle.sh SRC_DIR OUT_DIR ARTIFACTS_DIR.
# oracle_app (no packages) and clrmd_oracle (restores Microsoft.Diagnostics.Runtime from NuGet).
# Without dotnet, or when the restore fails, this fails: the oracle test never skips.
set -euo pipefail
src=$1 out=$2 artifacts=$3
if ! command -v dotnet >/dev/null 2>&1; then
  echo "oracle: error: 'dotnet' is not on PATH; the oracle test needs the .NET SDK (net10.0)" >&2
  exit 1
fi
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
for project in oracle_app clrmd_oracle; do
  if ! log=$(dotnet build "$src/$project" -c Release -o "$out/$project" --artifacts-path "$artifacts/$project" 2>&1); then
    printf '%s\n' "$log" >&2
    echo "oracle: error: dotnet build of $src/$project failed (clrmd_oracle needs NuGet's Microsoft.Diagnostics.Runtime)" >&2
    exit 1
  fi
done
test -f "$out/oracle_app/Gcsnap.OracleApp.dll" || { echo "oracle: error: Gcsnap.OracleApp.dll was not built" >&2; exit 1; }
test -f "$out/clrmd_oracle/Microsoft.Diagnostics.Runtime.dll" || { echo "oracle: error: ClrMD is missing from $out/clrmd_oracle" >&2; exit 1; }
echo "oracle: built $out/oracle_app and $out/clrmd_oracle"
