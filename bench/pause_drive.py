#!/usr/bin/env python3
"""Drive bench/stall_app for bench/pause.sh and print the snapshot-pause table.

Every row starts its own StallApp process, waits for "ready", resets the app's longest tick
gap ("stats"), does the row's action, waits for the app to run on, and reads the longest gap
back ("stats"): that is the stall the app felt. Rows with a snapshot repeat it REPS times in
the same process and show the median. Ratios are taken within this run only.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time

from stall_app_client import App


def log(msg):
    print(f"pause.sh: {msg}", file=sys.stderr, flush=True)


def settle(app, seconds=0.3):
    time.sleep(seconds)
    app.maxgap()  # reset: startup, JIT, attach noise are not the row's stall
    time.sleep(0.2)


def row_plain_gc(args, n, env):
    app = App(["dotnet", args.app_dll, str(n)], env, f"{args.out}/plain-{n}.err")
    gaps, gc_ms = [], []
    try:
        settle(app)
        for _ in range(args.reps):
            done = app.cmd("gc", "gc done")
            gc_ms.append(float(re.search(r"ms=([0-9.]+)", done).group(1)))
            time.sleep(0.3)
            gaps.append(app.maxgap())
    finally:
        app.quit()
    return app.objects, gaps, f"GC.Collect {statistics.median(gc_ms):.0f} ms"


def row_snapshot(args, n, env, walk_only, fields=True):
    snap = f"{args.out}/pause-{n}-{'walk' if walk_only else 'shim' if fields else 'nofields'}.snap"
    if os.path.exists(snap):
        os.unlink(snap)
    env = dict(env)
    env["GCSNAP_WALK_ONLY"] = "1" if walk_only else "0"
    # The shim starts with `record`, so the app inherits GCSNAP_FIELDS (field names' cost).
    env["GCSNAP_FIELDS"] = "1" if fields else "0"
    cmd = [args.gcsnap, "record", "-o", snap, "--policy", "none", "--", "dotnet", args.app_dll, str(n)]
    app = App(cmd, env, f"{args.out}/{os.path.basename(snap)}.err")
    gaps, walls = [], []
    try:
        settle(app)
        for _ in range(args.reps):
            t0 = time.time()
            r = subprocess.run([args.gcsnap, "snapshot", str(app.pid)], capture_output=True, text=True, env=env,
                               timeout=600)
            walls.append(time.time() - t0)
            if r.returncode != 0:
                raise RuntimeError(f"gcsnap snapshot failed: {r.stderr.strip()}")
            time.sleep(0.3)
            gaps.append(app.maxgap())
    finally:
        app.quit()
    note = f"snapshot cmd {statistics.median(walls) * 1000:.0f} ms"
    if not walk_only:
        info = subprocess.run([args.gcsnap, "info", snap], capture_output=True, text=True)
        walked = [ln.split() for ln in info.stdout.splitlines()
                  if re.match(r"\s*\d+\s+gen", ln) and ln.split()[4] != "none"]
        if walked:
            note += f"; {walked[-1][8]} objects in the last snapshot"
        note += f"; file {os.path.getsize(snap) / 1e6:.1f} MB"
    if os.path.exists(snap) and not args.keep:
        os.unlink(snap)
    return app.objects, gaps, note


def row_eventpipe(args, n, env):
    if not args.dotnet_trace or not os.path.exists(args.dotnet_trace):
        return None, [], f"dotnet-trace unavailable ({args.trace_note})"
    app = App(["dotnet", args.app_dll, str(n)], env, f"{args.out}/eventpipe-{n}.err")
    gaps, sizes = [], []
    try:
        settle(app)
        for rep in range(args.reps):
            trace = f"{args.out}/heap-{n}-{rep}.nettrace"
            if os.path.exists(trace):
                os.unlink(trace)
            before = gen2_count(app)
            tr = subprocess.Popen([args.dotnet_trace, "collect", "-p", str(app.pid), "--providers",
                                   "Microsoft-Windows-DotNETRuntime:0x1980001:5", "--buffersize", "1024",
                                   "-o", trace], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  stderr=open(f"{args.out}/dotnet-trace-{n}-{rep}.err", "w"), env=env,
                                  start_new_session=True)
            # The session's ManagedHeapCollect keyword forces a full GC that walks the heap.
            deadline = time.time() + 300
            while gen2_count(app) == before and time.time() < deadline and tr.poll() is None:
                time.sleep(0.1)
            # Let the app run on and the trace drain, then stop the session (Ctrl+C).
            wait_file_quiet(trace, 1.0, 120)
            os.killpg(tr.pid, signal.SIGINT)
            try:
                tr.wait(timeout=300)
            except subprocess.TimeoutExpired:
                os.killpg(tr.pid, signal.SIGKILL)
                tr.wait()
            time.sleep(0.3)
            gaps.append(app.maxgap())
            if os.path.exists(trace):
                sizes.append(os.path.getsize(trace))
                if not args.keep:
                    os.unlink(trace)
    finally:
        app.quit()
    note = "dotnet-trace collect, keywords 0x1980001"
    if sizes:
        note += f"; trace {statistics.median(sizes) / 1e6:.0f} MB"
    return app.objects, gaps, note


def gen2_count(app):
    line = app.cmd("gcs", "gcs ")
    return int(re.search(r"gen2=(\d+)", line).group(1))


def wait_file_quiet(path, quiet_s, timeout_s):
    deadline = time.time() + timeout_s
    last, since = -1, time.time()
    while time.time() < deadline:
        size = os.path.getsize(path) if os.path.exists(path) else -1
        if size != last:
            last, since = size, time.time()
        elif time.time() - since >= quiet_s and size > 0:
            return
        time.sleep(0.1)


def fmt_ms(v):
    return f"{v:.0f}" if v >= 10 else f"{v:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000000 5000000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("--app-dll", required=True)
    ap.add_argument("--gcsnap", required=True)
    ap.add_argument("--dotnet-trace", default="")
    ap.add_argument("--trace-note", default="not installed")
    ap.add_argument("--rows", default="plain,walk,shim,eventpipe")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    env = dict(os.environ)
    rows = args.rows.split(",")
    results = {}
    for n in [int(s) for s in args.sizes.split()]:
        for name in rows:
            log(f"n={n}: {name}")
            try:
                if name == "plain":
                    res = row_plain_gc(args, n, env)
                elif name == "walk":
                    res = row_snapshot(args, n, env, True)
                elif name == "shim":
                    res = row_snapshot(args, n, env, False)
                elif name == "nofields":
                    res = row_snapshot(args, n, env, False, fields=False)
                elif name == "eventpipe":
                    res = row_eventpipe(args, n, env)
                else:
                    raise SystemExit(f"unknown row {name}")
            except Exception as e:  # the row says what failed; the others still run
                res = (None, [], f"FAILED: {e}")
            results[(n, name)] = res
            log(f"n={n}: {name}: gaps {res[1]} {res[2]}")
    labels = {
        "plain": "a plain full blocking GC, no profiler",
        "walk": "gcsnap snapshot, GCSNAP_WALK_ONLY=1 (runtime walk only)",
        "shim": "gcsnap snapshot (record --policy none)",
        "nofields": "gcsnap snapshot, GCSNAP_FIELDS=0 (no field names)",
        "eventpipe": "EventPipe heap dump (dotnet-trace, gcdump keywords)",
    }
    print(f"snapshot pause (bench/pause.sh; longest tick gap of bench/stall_app, median of {args.reps}; ratios within this run)")
    print(f"| {'objects':>9} | {'what the app went through':56} | {'stall ms':>8} | {'runs (ms)':24} | notes |")
    print(f"|{'-' * 11}|{'-' * 58}|{'-' * 10}|{'-' * 26}|-------|")
    medians = {}
    for (n, name), (objects, gaps, note) in results.items():
        med = statistics.median(gaps) if gaps else None
        medians[(n, name)] = med
        runs = ", ".join(fmt_ms(g) for g in gaps) if gaps else "-"
        print(f"| {objects or n:>9} | {labels[name]:56} | {fmt_ms(med) if med is not None else '-':>8} | {runs:24} | {note} |")
    print()
    print("| objects | snapshot / walk-only (target <= 1.3) | snapshot / EventPipe dump (target < 0.6) | walk-only / plain GC |")
    print("|---|---|---|---|")
    for n in sorted({k[0] for k in medians}):
        def ratio(a, b, limit=None, below=False):
            x, y = medians.get((n, a)), medians.get((n, b))
            if not x or not y:
                return "-"
            r = x / y
            if limit is None:
                return f"{r:.2f}"
            ok = r < limit if below else r <= limit
            return f"{r:.2f} ({'holds' if ok else 'NO'})"
        print(f"| {n} | {ratio('shim', 'walk', 1.3)} | {ratio('shim', 'eventpipe', 0.6, True)} | {ratio('walk', 'plain')} |")
    if "nofields" in rows:
        print()
        print("| objects | snapshot with field names / GCSNAP_FIELDS=0 | (GCSNAP_FIELDS=0) / walk-only |")
        print("|---|---|---|")
        for n in sorted({k[0] for k in medians}):
            x, y, w = medians.get((n, "shim")), medians.get((n, "nofields")), medians.get((n, "walk"))
            print(f"| {n} | {x / y if x and y else float('nan'):.2f} | {y / w if y and w else float('nan'):.2f} |")


if __name__ == "__main__":
    main()
