#!/usr/bin/env python3
"""Drive bench/web_app on each runtime for bench/runtimes.sh and print what recording costs.

For each runtime (a private root of scripts/runtimes.sh --aspnet) and each row, a fresh app
process (the net8.0 build, rolled forward) is warmed up with wrk, its pause counters are reset
(GET /stats), and `wrk -t1 -c16 -dDURATION --latency` measures it; GET /stats then gives the
gen0 and gen1 pauses of the window. Rows: off (no profiler), attach (`gcsnap record --pid`,
default policy, attached after the warm-up for the window), none (`record --policy none`),
default (`record`, default policy), noevents (`record` without .NET 8's GCTriggered session,
GCSNAP_GC_REASON_EVENTS=0; the same as default on other runtimes), off-nobgc (no profiler,
System.GC.Concurrent=false: what losing background GC costs alone), light and light-nobgc (`record
--policy none` with the shim's experiment switch GCSNAP_EXPERIMENT_LIGHT_MASK=1: the event mask
BASIC_GC | MONITOR_GC_MOVED_OBJECTS instead of MONITOR_GC; with and without background GC). Rows and runtimes are interleaved per repetition; the
table shows medians and the ratios against "off" on the same runtime.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # importing web_drive leaves no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web_drive import LUA, free_port, http_get, parse_wrk  # noqa: E402

ROWS = {
    "off": "no profiler",
    "off-nobgc": "no profiler, no background GC",
    "attach": "record --pid --source profiler (default policy)",
    "attach-events": "record --pid --source events",
    "events": "record --source events (walks on demand only)",
    "none": "record --policy none",
    "default": "record (default policy)",
    "noevents": "record, GCSNAP_GC_REASON_EVENTS=0",
    "light": "record --policy none, BASIC_GC|MOVED_OBJECTS mask",
    "light-nobgc": "the same, no background GC",
}


def log(msg):
    print(f"runtimes.sh: {msg}", file=sys.stderr, flush=True)


def run_one(args, runtime, row, rep, lua):
    major, version, root = runtime
    port = free_port()
    env = dict(os.environ, DOTNET_ROOT=root, DOTNET_ROLL_FORWARD="Major")
    if row == "noevents":
        env["GCSNAP_GC_REASON_EVENTS"] = "0"
    if row.startswith("light"):
        env["GCSNAP_EXPERIMENT_LIGHT_MASK"] = "1"  # an experiment switch of the shim
    app_dll = args.app_dll
    if row.endswith("-nobgc"):
        # The app's runtimeconfig.json says System.GC.Concurrent=true, and that wins over
        # DOTNET_gcConcurrent=0 (background GCs still ran with it); a copy of the build whose
        # runtimeconfig says false is what turns background GC off.
        env["DOTNET_gcConcurrent"] = "0"
        app_dll = args.nobgc_dll
    policy = {"noevents": "default", "light": "none", "light-nobgc": "none", "events": "none"}.get(row, row)
    source = ["--source", "events"] if row == "events" else []
    app_cmd = [f"{root}/dotnet", app_dll, str(port), str(args.entries), str(args.garbage_kb)]
    base = f"{args.out}/net{major}-{row}-{rep}"
    snap = base + ".snap"
    for f in (snap,):
        if os.path.exists(f):
            os.unlink(f)
    attach_row = row in ("attach", "attach-events")
    cmd = app_cmd if row in ("off", "off-nobgc") or attach_row else \
        [args.gcsnap, "record", "-o", snap, "--policy", policy] + source + ["--"] + app_cmd
    err = open(base + ".err", "w")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, bufsize=1, env=env)
    attached = None
    try:
        line = proc.stdout.readline()
        if "web-app: ready pid=" not in line:
            raise RuntimeError(f"app did not start: {line.strip()!r} (see {err.name})")
        pid = int(line.split("pid=")[1].split()[0])
        url = f"http://127.0.0.1:{port}"
        subprocess.run(["wrk", "-t1", "-c16", f"-d{args.warmup}s", "-s", lua, url], capture_output=True, check=True)
        if attach_row:
            attached = subprocess.Popen([args.gcsnap, "record", "--pid", str(pid), "-o", snap, "--source",
                                         "events" if row == "attach-events" else "profiler",
                                         "--duration", f"{args.duration + 2}s"],
                                        stdout=subprocess.DEVNULL, stderr=open(base + ".attach.err", "w"))
            time.sleep(1)  # the attach request and its forced GC come before the window
        http_get(port, "/stats")  # resets the pause counters
        w = subprocess.run(["wrk", "-t1", "-c16", f"-d{args.duration}s", "--latency", "-s", lua, url],
                           capture_output=True, text=True, check=True)
        stats = json.loads(http_get(port, "/stats"))
        if attached:
            if attached.wait(timeout=120) != 0:
                raise RuntimeError(f"gcsnap record --pid failed (see {base}.attach.err)")
        with open(base + ".wrk", "w") as f:
            f.write(w.stdout)
        rps, p99, mx = parse_wrk(w.stdout)
        try:
            http_get(port, "/quit")
        except Exception:
            pass
        proc.wait(timeout=300)
    finally:
        for p in (attached, proc):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        err.close()
    if os.path.exists(snap) and not args.keep:
        os.unlink(snap)
    return {"rps": rps, "p99": p99, "max": mx, "g0n": stats["SeenGen0"], "g0mean": stats["MeanGen0Ms"],
            "g0max": stats["MaxGen0Ms"], "g1n": stats["SeenGen1"], "g1mean": stats["MeanGen1Ms"],
            "g1max": stats["MaxGen1Ms"], "missed": stats["Missed"],
            "g2bn": stats["SeenBlockingGen2"], "g2bmean": stats["MeanBlockingGen2Ms"], "g2bmax": stats["MaxBlockingGen2Ms"],
            "g2cn": stats["SeenBackgroundGen2"], "g2cmean": stats["MeanBackgroundGen2Ms"],
            "g2cmax": stats["MaxBackgroundGen2Ms"]}


def copy_without_background_gc(app_dll, out):
    """A copy of the app's build directory whose runtimeconfig.json turns background GC off."""
    src = os.path.dirname(os.path.abspath(app_dll))
    dst = os.path.join(out, "app-nobgc")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    name = os.path.splitext(os.path.basename(app_dll))[0] + ".runtimeconfig.json"
    path = os.path.join(dst, name)
    with open(path) as f:
        config = json.load(f)
    config.setdefault("runtimeOptions", {}).setdefault("configProperties", {})["System.GC.Concurrent"] = False
    with open(path, "w") as f:
        json.dump(config, f, indent=2)
    return os.path.join(dst, os.path.basename(app_dll))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--app-dll", required=True)
    ap.add_argument("--gcsnap", required=True)
    ap.add_argument("--runtimes", required=True, help="lines 'MAJOR VERSION ROOT' from scripts/runtimes.sh")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--entries", type=int, default=40000)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--garbage-kb", type=int, default=64,
                    help="short-lived KB per request, so that gen0 GCs happen under load")
    ap.add_argument("--rows", default="off,attach,none,default")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    rows = args.rows.split(",")
    for r in rows:
        if r not in ROWS:
            raise SystemExit(f"unknown row {r}")
    runtimes = [tuple(line.split()) for line in open(args.runtimes) if line.strip()]
    args.nobgc_dll = copy_without_background_gc(args.app_dll, args.out)
    lua = f"{args.out}/orders.lua"
    with open(lua, "w") as f:
        f.write(LUA)
    results = {(rt[0], r): [] for rt in runtimes for r in rows}
    load = []
    for rep in range(args.reps):
        for rt in runtimes:
            for row in rows:
                load.append(os.getloadavg()[0])
                try:
                    res = run_one(args, rt, row, rep, lua)
                except Exception as e:  # the row says what failed; the others still run
                    log(f"rep {rep + 1} .NET {rt[1]} {row}: FAILED: {e}")
                    continue
                results[(rt[0], row)].append(res)
                log(f"rep {rep + 1} .NET {rt[1]} {row}: {res['rps']:.0f} req/s, p99 {res['p99']:.1f} ms, "
                    f"max {res['max']:.0f} ms, gen0 {res['g0n']:.0f} x {res['g0mean']:.1f} ms (max {res['g0max']:.1f}), "
                    f"gen1 {res['g1n']:.0f} x {res['g1mean']:.1f} ms (max {res['g1max']:.1f}), "
                    f"blocking gen2 {res['g2bn']:.0f} x {res['g2bmean']:.1f} ms (max {res['g2bmax']:.1f}), "
                    f"background gen2 {res['g2cn']:.0f} x {res['g2cmean']:.1f} ms (max {res['g2cmax']:.1f}), "
                    f"missed {res['missed']:.0f}")
    print(f"recording cost per runtime (bench/runtimes.sh: bench/web_app built for net8.0, {args.entries} cached "
          f"orders, {args.garbage_kb} KB of request garbage, wrk -t1 -c16 -d{args.duration}s --latency on loopback; "
          f"median of {args.reps}, rows interleaved; "
          f"load average {min(load):.1f}-{max(load):.1f} at the row starts)")
    print("| runtime | run | req/s | vs off | p99 ms | p99 vs off | max ms | gen0 GCs, mean / max ms "
          "| gen1 GCs, mean / max ms | blocking gen2, mean / max ms | background gen2, mean / max ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for rt in runtimes:
        med = {}
        for row in rows:
            rs = results[(rt[0], row)]
            if rs:
                med[row] = {k: statistics.median(x[k] for x in rs) for k in rs[0]}
        for row in rows:
            if row not in med:
                print(f"| {rt[1]} | {ROWS[row]} | FAILED (see {args.out}/net{rt[0]}-{row}-*.err) |")
                continue
            m = med[row]
            off = med.get("off")
            vs = f"{m['rps'] / off['rps']:.2f}x" if off else "-"
            p99 = f"{m['p99'] / off['p99']:.2f}x" if off else "-"
            print(f"| {rt[1]} | {ROWS[row]} | {m['rps']:.0f} | {vs} | {m['p99']:.1f} | {p99} | {m['max']:.0f} | "
                  f"{m['g0n']:.0f}, {m['g0mean']:.1f} / {m['g0max']:.1f} | {m['g1n']:.0f}, {m['g1mean']:.1f} / {m['g1max']:.1f} | "
                  f"{m['g2bn']:.0f}, {m['g2bmean']:.1f} / {m['g2bmax']:.1f} | {m['g2cn']:.0f}, {m['g2cmean']:.1f} / {m['g2cmax']:.1f} |")
        if "off" in med and "default" in med:
            target = 1.2 if int(rt[0]) >= 11 else 1.5
            r = med["default"]["p99"] / med["off"]["p99"]
            line = f".NET {rt[1]}: default p99 {r:.2f}x of no profiler (target {target}x): {'yes' if r <= target else 'NO'}"
            if int(rt[0]) >= 11 and "none" in med:
                n = med["none"]["p99"] / med["off"]["p99"]
                line += f"; --policy none {n:.2f}x (target 1.5x): {'yes' if n <= 1.5 else 'NO'}"
            print(line)
        if "default" in med and "noevents" in med:
            d, n = med["default"], med["noevents"]
            print(f".NET {rt[1]}: without the GCTriggered session / with it: p99 {n['p99'] / d['p99']:.2f}x, "
                  f"req/s {n['rps'] / d['rps']:.2f}x, mean gen0 pause {n['g0mean'] / d['g0mean'] if d['g0mean'] else float('nan'):.2f}x")


if __name__ == "__main__":
    main()
