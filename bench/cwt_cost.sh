#!/usr/bin/env bash
# What answering ICorProfilerCallback5 costs at every GC: the runtime then scans all dependent
# handles (ConditionalWeakTable entries) in each GC's profiler walk and reports the pairs.
# Runs bench/cwt_app under `gcsnap record --policy none` (no heap walks, so only the scan and
# the callbacks differ) with Callback5 answered and not (GCSNAP_NO_CALLBACK5=1), and plain,
# for several entry counts; prints median GC.Collect times. Usage: bench/cwt_cost.sh GCSNAP
set -euo pipefail
gcsnap=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dotnet build "$here/cwt_app" -c Release -o "$work/app" --artifacts-path "$work/artifacts" >/dev/null
gcs=${CWT_GCS:-200}
printf '%-10s %-22s %10s %10s\n' entries mode gen0_us gen2_us
for entries in 0 100000 1000000; do
  for mode in plain callback4 callback5; do
    case $mode in
      plain) line=$(DOTNET_gcConcurrent=0 dotnet "$work/app/CwtApp.dll" "$entries" "$gcs") ;;
      callback4) line=$(GCSNAP_NO_CALLBACK5=1 "$gcsnap" record --policy none --force -o "$work/r.snap" -- dotnet "$work/app/CwtApp.dll" "$entries" "$gcs" 2>/dev/null) ;;
      callback5) line=$("$gcsnap" record --policy none --force -o "$work/r.snap" -- dotnet "$work/app/CwtApp.dll" "$entries" "$gcs" 2>/dev/null) ;;
    esac
    g0=$(sed -n 's/.*gen0_us=\([0-9]*\).*/\1/p' <<<"$line") g2=$(sed -n 's/.*gen2_us=\([0-9]*\).*/\1/p' <<<"$line")
    printf '%-10s %-22s %10s %10s\n' "$entries" "$mode" "$g0" "$g2"
  done
done
