#!/usr/bin/env python3
"""Check `gcsnap inspect --format json` against the event and timer leaks the holder-patterns
app made: inspect_handlers_check.py INSPECT_JSON LEAKED. Each of the app's event fields and its
timers must be exactly one finding with the holder's field, the delegate's method and LEAKED
subscriptions or timers, and bytes at least LEAKED times what each keeps at the least (the
delegate and its subscriber or owner); each kind's total at most the sum of its findings (the
union, never counted twice). Prints the findings; exit 1 on a mismatch."""
import json
import sys

APP = "Gcsnap.HolderPatterns."
EXPECTED = [  # kind, holder, method, text the finding's "what" must hold, bytes each at least
    ("event-handlers", APP + "ConfigWatcher.Changed", APP + "EventSubscriber.OnChanged", "static event", 64 + 24),
    ("event-handlers", APP + "Publisher.Updated", APP + "InstanceListener.OnUpdated", APP + "InstanceListener", 64 + 24),
    ("timers", "System.Threading.TimerQueue.Instances", "<lambda> in " + APP + "PollSession.Start",
     "kept in " + APP + "PollSession._timer", 64 + 64 + 24),
]


def main():
    with open(sys.argv[1]) as f:
        report = json.load(f)
    leaked = int(sys.argv[2])
    findings = report["findings"]
    for r in findings:
        if r["kind"] in ("event-handlers", "timers"):
            print(f"  {r['kind']}: {r['holder']} | {r['method']} | {r['objects']} | {r['bytes']} B | {r['what']}")
    failed = False
    for kind, holder, method, text, least in EXPECTED:
        found = [r for r in findings if r["kind"] == kind and r["holder"] == holder and r["method"] == method]
        if len(found) != 1:
            print(f"inspect_handlers_check: {len(found)} findings are {kind} | {holder} | {method}")
            failed = True
            continue
        r = found[0]
        if r["objects"] != leaked or text not in r["what"] or r["bytes"] < leaked * least:
            print(f"inspect_handlers_check: {kind} {holder}: want {leaked} objects, '{text}', {leaked * least}+ B")
            failed = True
    for total in report["totals"]:
        if total["kind"] == "all":
            continue
        summed = sum(r["bytes"] for r in findings if r["kind"] == total["kind"])
        if not 0 < total["bytes"] <= summed:
            print(f"inspect_handlers_check: {total['kind']}: total {total['bytes']} B, findings sum {summed} B")
            failed = True
    sys.exit(1 if failed else 0)


main()
