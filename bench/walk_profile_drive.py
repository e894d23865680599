#!/usr/bin/env python3
"""Drive bench/walk_profile.sh: load-independent counts of the snapshot's heap walk.

For each row (walk: GCSNAP_WALK_ONLY=1; shim: the shim storing the walk; shim_b: another build
of the shim, GCSNAP_SHIM_B) one app runs under `gcsnap record --policy none`; each repetition
counts, with `perf stat -t`, the events of the thread that runs the forced GC and its heap walk
(gcsnap-control) while `gcsnap snapshot PID` runs. Counts are per thread, so the machine's load
changes them little (unlike wall times). The difference between a shim row and the walk row,
divided by the objects walked, is what the shim adds per object. With --record, one more
snapshot per shim row runs under `perf record -g` and the report's top symbols are printed.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # importing the other drivers leaves no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stall_app_client import App  # noqa: E402
from pause_drive import wait_file_quiet, settle, load_average  # noqa: E402

EVENTS = ["instructions", "cycles", "cache-misses", "page-faults", "task-clock"]


def log(msg):
    print(f"walk_profile.sh: {msg}", file=sys.stderr, flush=True)


def control_tid(pid):
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/comm") as f:
            if f.read().strip() == "gcsnap-control":
                return int(tid)
    raise RuntimeError("no gcsnap-control thread (is the shim recording?)")


def parse_perf_stat(path):
    counts = {}
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) < 3 or parts[2].split(":")[0] not in EVENTS:
                continue
            try:  # "<not supported>" where the machine has no such counter
                counts[parts[2].split(":")[0]] = float(parts[0])
            except ValueError:
                pass
    return counts


class Row:
    def __init__(self, args, name):
        self.name = name
        self.snap = f"{args.out}/profile-{args.app_name}-{name}.snap"
        if os.path.exists(self.snap):
            os.unlink(self.snap)
        self.env = dict(os.environ)
        self.env["GCSNAP_WALK_ONLY"] = "1" if name == "walk" else "0"
        self.env["GCSNAP_WALK_TIMES"] = "1"
        if name == "shim_b":
            self.env["GCSNAP_SHIM"] = args.shim_b
        cmd = [args.gcsnap, "record", "-o", self.snap, "--policy", "none", "--", "dotnet", args.app_dll, str(args.size)]
        self.app = App(cmd, self.env, f"{self.snap}.err")
        self.counts = []

    def snapshot(self, args, perf_argv, tag):
        settle(self.app)
        tid = control_tid(self.app.pid)
        out = f"{args.out}/perf-{args.app_name}-{self.name}-{tag}"
        perf = subprocess.Popen(perf_argv(tid, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(0.5)  # perf attaches
        r = subprocess.run([args.gcsnap, "snapshot", str(self.app.pid)], capture_output=True, text=True,
                           env=self.env, timeout=600)
        if r.returncode != 0:
            raise RuntimeError(f"gcsnap snapshot failed: {r.stderr.strip()}")
        time.sleep(0.2)
        os.killpg(perf.pid, 2)
        perf.wait(timeout=120)
        if self.name != "walk":
            wait_file_quiet(self.snap, 1.0, 300)
        return out

    def rep(self, args, rep):
        out = self.snapshot(args, lambda tid, out: ["perf", "stat", "-x,", "-e", ",".join(EVENTS), "-t", str(tid),
                                                     "-o", out + ".stat"], str(rep))
        self.counts.append(parse_perf_stat(out + ".stat"))

    def profile(self, args):
        out = self.snapshot(args, lambda tid, out: ["perf", "record", "-g", "-t", str(tid), "-o", out + ".data"],
                            "record")
        rep = subprocess.run(["perf", "report", "-i", out + ".data", "--no-children", "--sort", "dso,symbol",
                              "--stdio", "-g", "none", "--percent-limit", "0.5"], capture_output=True, text=True)
        return [ln for ln in rep.stdout.splitlines() if ln.strip() and not ln.startswith("#")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rows", default="walk,shim")
    ap.add_argument("--out", required=True)
    ap.add_argument("--app-dll", required=True)
    ap.add_argument("--app-name", required=True)
    ap.add_argument("--gcsnap", required=True)
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--shim-b", default=os.environ.get("GCSNAP_SHIM_B", ""))
    args = ap.parse_args()
    names = args.rows.split(",")
    if "shim_b" in names and not args.shim_b:
        raise SystemExit("row shim_b needs GCSNAP_SHIM_B (another build of the shim)")
    load_before = load_average()
    rows = []
    for name in names:
        log(f"starting {name}")
        rows.append(Row(args, name))
    objects = rows[0].app.objects
    for rep in range(args.reps):
        for row in rows:
            row.rep(args, rep)
            log(f"rep {rep + 1}: {row.name}: {row.counts[-1]} (load {load_average()})")
    profiles = {row.name: row.profile(args) for row in rows if args.record and row.name != "walk"}
    for row in rows:
        row.app.quit()
        if os.path.exists(row.snap):
            os.unlink(row.snap)
    med = {row.name: {e: statistics.median([c.get(e, 0) for c in row.counts]) for e in EVENTS} for row in rows}
    hw = all(m["instructions"] > 0 for m in med.values())
    print(f"heap walk of a snapshot, bench/{args.app_name} ({objects} objects): events of the GC thread "
          f"(perf stat -t: the forced GC, heap walk included), median of {args.reps}; load {load_before} -> "
          f"{load_average()}" + ("" if hw else "; no hardware counters here (a VM?): CPU time only"))
    print("| row | CPU ns / object | page faults | instructions / object | cycles / object | cache misses / object |")
    print("|---|---|---|---|---|---|")
    per = lambda m, e: f"{m[e] / objects:.1f}" if hw else "-"
    for name, m in med.items():
        print(f"| {name} | {m['task-clock'] * 1e6 / objects:.1f} | {m['page-faults']:.0f} | {per(m, 'instructions')} | "
              f"{per(m, 'cycles')} | {per(m, 'cache-misses')} |")
    if "walk" in med:
        print()
        print("| row | the shim's CPU ns / object (row - walk) | share of the GC thread's CPU | instructions / object (row - walk) |")
        print("|---|---|---|---|")
        w = med["walk"]
        for name, m in med.items():
            if name == "walk":
                continue
            d = m["task-clock"] - w["task-clock"]
            ins = f"{(m['instructions'] - w['instructions']) / objects:.0f}" if hw else "-"
            print(f"| {name} | {d * 1e6 / objects:.1f} | {d / m['task-clock']:.0%} | {ins} |")
    for name, lines in profiles.items():
        print()
        print(f"perf record -g of the GC thread, row {name}, symbols over 0.5 % (self):")
        for ln in lines:
            print("    " + ln.rstrip())


if __name__ == "__main__":
    main()
