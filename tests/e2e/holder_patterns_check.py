#!/usr/bin/env python3
"""Check `gcsnap leaks --format json` against the holders the holder-patterns app made:
holder_patterns_check.py LEAKS_JSON EXPECTED. EXPECTED has one line per leak kind,
'pattern|holder|method or target', where holder may list alternatives separated by ' or '.
Every kind must be the pattern, holder and method (or, when the kind has no delegate, target)
of exactly one suspect. Prints each suspect's named holder; exit 1 on a mismatch."""
import json
import sys


def suspects(report):
    for table in report.get("tables", []) if isinstance(report, dict) else []:
        if table.get("name") == "suspects":
            return table.get("rows", [])
    if isinstance(report, dict) and "suspects" in report:
        return report["suspects"]
    raise SystemExit("holder_patterns_check: no suspects table in the JSON")


def main():
    with open(sys.argv[1]) as f:
        rows = suspects(json.load(f))
    for r in rows:
        print(f"  {r.get('type')}: {r.get('pattern')} | {r.get('holder')} | {r.get('method') or ''} | "
              f"{r.get('target') or ''} | {r.get('owner_field') or ''}")
    failed = False
    with open(sys.argv[2]) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            pattern, holders, want = line.split("|")
            holders = holders.split(" or ")
            found = [r for r in rows if r.get("pattern") == pattern and r.get("holder") in holders and
                     want in (r.get("method"), r.get("target"), r.get("owner_field"))]
            if len(found) != 1:
                print(f"holder_patterns_check: {len(found)} suspects are {pattern} | {' or '.join(holders)} | {want}")
                failed = True
    sys.exit(1 if failed else 0)


main()
