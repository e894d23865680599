#!/usr/bin/env python3
"""Drive bench/web_app under wrk for bench/web.sh (issue 11) and print the latency table.

Each row of each repetition starts its own app process (under `gcsnap record` or not), waits
for "ready", warms it up with wrk for WARMUP seconds (JIT, tiering, the cache filled), then
measures `wrk -t1 -c16 -dDURATION --latency` and stops the app through GET /quit (a normal
shutdown, so the recording is finished). The rows are interleaved per repetition, so a change
of machine load spreads over all of them; the table shows medians and ratios of this run.
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

ROWS = {
    "off": ("no profiler", None),
    "none": ("record --policy none", "none"),
    "default": ("record (default policy)", "default"),
    "gen2": ("record --policy gen2 (a walk at every gen2)", "gen2"),
    "snapshot": ("--policy none + one gcsnap snapshot", "none"),
}
# wrk asks for a different order each request, as a real client would.
LUA = 'counter = 0\nrequest = function()\n  counter = counter + 1\n  return wrk.format(nil, "/orders/" .. counter)\nend\n'


def log(msg):
    print(f"web.sh: {msg}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_ms(text):
    m = re.match(r"([0-9.]+)(us|ms|s|m)$", text)
    v, unit = float(m.group(1)), m.group(2)
    return v * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}[unit]


def parse_wrk(out):
    rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    p99 = parse_ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    lat = re.search(r"^\s+Latency\s+(\S+)\s+(\S+)\s+(\S+)", out, re.M)
    return rps, p99, parse_ms(lat.group(3))


def http_get(port, path, timeout=30):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
        return r.read().decode()


def walks_and_skips(gcsnap, snap):
    """(GCs, heap walks, walks skipped by the policy, most objects in a walk) from `gcsnap info`."""
    r = subprocess.run([gcsnap, "info", "--format", "json", snap], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    doc = json.loads(r.stdout)
    gcs = doc.get("gcs", [])
    trig = [str(g.get("trigger", "none")) for g in gcs]
    walked = sum(1 for t in trig if t != "none" and not t.startswith("skipped"))
    skipped = sum(1 for t in trig if t.startswith("skipped"))
    objects = max((g.get("objects", 0) for g in gcs), default=0)
    return len(gcs), walked, skipped, objects


def run_one(args, row, rep, lua):
    label, policy = ROWS[row]
    port = free_port()
    app_cmd = ["dotnet", args.app_dll, str(port), str(args.entries)]
    snap = f"{args.out}/web-{row}-{rep}.snap"
    if os.path.exists(snap):
        os.unlink(snap)
    cmd = app_cmd if policy is None else [args.gcsnap, "record", "-o", snap, "--policy", policy, "--"] + app_cmd
    err = open(f"{args.out}/web-{row}-{rep}.err", "w")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, bufsize=1)
    try:
        line = proc.stdout.readline()
        m = re.search(r"web-app: ready pid=(\d+)", line)
        if not m:
            raise RuntimeError(f"app did not start: {line.strip()!r} (see {err.name})")
        pid = int(m.group(1))
        url = f"http://127.0.0.1:{port}"
        if args.warmup > 0:
            subprocess.run(["wrk", "-t1", "-c16", f"-d{args.warmup}s", "-s", lua, url], capture_output=True, check=True)
        gc_before = http_get(port, "/stats")
        snap_result = {}
        timer = None
        if row == "snapshot":
            def take():
                t0 = time.time()
                r = subprocess.run([args.gcsnap, "snapshot", str(pid)], capture_output=True, text=True)
                snap_result["ms"] = (time.time() - t0) * 1e3
                snap_result["rc"] = r.returncode
                snap_result["err"] = r.stderr.strip()
            timer = threading.Timer(args.duration * 0.4, take)
            timer.start()
        w = subprocess.run(["wrk", "-t1", "-c16", f"-d{args.duration}s", "--latency", "-s", lua, url],
                           capture_output=True, text=True, check=True)
        if timer:
            timer.join()
            if snap_result.get("rc") != 0:
                raise RuntimeError(f"gcsnap snapshot failed: {snap_result.get('err')}")
        gc_after = http_get(port, "/stats")
        with open(f"{args.out}/web-{row}-{rep}.wrk", "w") as f:
            f.write(w.stdout)
        rps, p99, mx = parse_wrk(w.stdout)
        try:
            http_get(port, "/quit")
        except Exception:
            pass
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        err.close()
    g0 = [int(x) for x in re.findall(r'"Gen\d":(\d+)', gc_before)]
    g1 = [int(x) for x in re.findall(r'"Gen\d":(\d+)', gc_after)]
    gcs = [b - a for a, b in zip(g0, g1)]
    info = walks_and_skips(args.gcsnap, snap) if policy else None
    if os.path.exists(snap) and not args.keep:
        os.unlink(snap)
    return {"rps": rps, "p99": p99, "max": mx, "gcs": gcs, "info": info, "snap_ms": snap_result.get("ms")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--app-dll", required=True)
    ap.add_argument("--gcsnap", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--entries", type=int, default=40000)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rows", default="off,none,default,gen2,snapshot")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    rows = args.rows.split(",")
    for r in rows:
        if r not in ROWS:
            raise SystemExit(f"unknown row {r}")
    lua = f"{args.out}/orders.lua"
    with open(lua, "w") as f:
        f.write(LUA)
    results = {r: [] for r in rows}
    load = []
    for rep in range(args.reps):
        for row in rows:
            load.append(os.getloadavg()[0])
            try:
                res = run_one(args, row, rep, lua)
            except Exception as e:  # the row says what failed; the others still run
                log(f"rep {rep + 1} {row}: FAILED: {e}")
                continue
            results[row].append(res)
            log(f"rep {rep + 1} {row}: {res['rps']:.0f} req/s, p99 {res['p99']:.1f} ms, max {res['max']:.0f} ms, "
                f"GCs in the window (gen0/1/2 counts) {res['gcs']}, recording (GCs, walked, skipped, objects) {res['info']}"
                + (f", snapshot command {res['snap_ms']:.0f} ms" if res['snap_ms'] else ""))
    med = {}
    for row in rows:
        rs = results[row]
        if rs:
            med[row] = {k: statistics.median(x[k] for x in rs) for k in ("rps", "p99", "max")}
    print(f"web service under load (bench/web.sh: bench/web_app, {args.entries} cached orders, "
          f"wrk -t1 -c16 -d{args.duration}s --latency on loopback; median of {args.reps}, rows interleaved; "
          f"load average {min(load):.1f}-{max(load):.1f} at the row starts)")
    print(f"| {'run':44} | {'requests/s':>10} | {'vs off':>6} | {'p99 ms':>7} | {'p99 / none':>10} | {'max ms':>7} | "
          f"{'gen2 GCs in window':>18} | walks / skipped (whole run) |")
    print(f"|{'-' * 46}|{'-' * 12}|{'-' * 8}|{'-' * 9}|{'-' * 12}|{'-' * 9}|{'-' * 20}|-----------------------------|")
    for row in rows:
        if row not in med:
            print(f"| {ROWS[row][0]:44} | FAILED (see {args.out}/web-{row}-*.err) |")
            continue
        m = med[row]
        vs_off = f"{m['rps'] / med['off']['rps']:.2f}x" if "off" in med else "-"
        vs_none = f"{m['p99'] / med['none']['p99']:.2f}x" if "none" in med else "-"
        gen2 = ", ".join(str(x["gcs"][2]) for x in results[row] if len(x["gcs"]) == 3)
        infos = [x["info"] for x in results[row] if x["info"]]
        ws = ", ".join(f"{i[1]}/{i[2]}" for i in infos) if infos else "-"
        print(f"| {ROWS[row][0]:44} | {m['rps']:>10.0f} | {vs_off:>6} | {m['p99']:>7.1f} | {vs_none:>10} | "
              f"{m['max']:>7.0f} | {gen2:>18} | {ws} |")
    objs = [x["info"][3] for r in rows for x in results[r] if x["info"] and x["info"][3]]
    if objs:
        print(f"objects per heap walk: {min(objs)}-{max(objs)}")
    if "default" in med and "none" in med:
        ratio = med["default"]["p99"] / med["none"]["p99"]
        print(f"target: default policy p99 <= 1.5x --policy none: {ratio:.2f}x: {'yes' if ratio <= 1.5 else 'NO'}")


if __name__ == "__main__":
    main()
