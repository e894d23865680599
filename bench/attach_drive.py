#!/usr/bin/env python3
"""Drive bench/stall_app for bench/attach.sh and print the attach table.

For each heap size, two StallApp processes:
  * one started plainly (no profiler): a plain full GC (`gc`), then REPS times
    `gcsnap snapshot PID` (attach, forced GC + heap walk, finish the file, detach);
  * one started under `gcsnap record --policy none`: REPS times `gcsnap snapshot PID`
    (the shim is already loaded; the forced GC is walked into the running recording).
For each action: the wall time of the command (for the attached snapshot that includes the
finished file and the detach) and the longest gap the app's 1 ms ticker saw ("stats").
Medians over REPS; ratios are within this run only.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

from stall_app_client import App


def log(msg):
    print(f"attach.sh: {msg}", file=sys.stderr, flush=True)


def timed(argv):
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    wall = (time.monotonic() - start) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
    return wall, done.stdout.strip()


def settle(app):
    time.sleep(0.3)  # let the app run on, so the gap read back is the action's own
    return app.maxgap()


def run_size(args, size, env, rows):
    plain_env = {k: v for k, v in env.items() if not k.startswith(("CORECLR_", "GCSNAP_"))}
    app = App(["dotnet", args.app_dll, str(size)], plain_env, os.path.join(args.out, f"plain-{size}.err"))
    app.maxgap()
    app.cmd("gc", "gc done")
    rows.append((size, app.objects, "plain full GC (no profiler)", None, [settle(app)], None))
    walls, gaps, files = [], [], []
    for rep in range(args.reps):
        out = os.path.join(args.out, f"attach-{size}-{rep}.snap")
        app.maxgap()
        wall, _ = timed([args.gcsnap, "snapshot", str(app.pid), "-o", out])
        gaps.append(settle(app))
        walls.append(wall)
        files.append(os.path.getsize(out))
        log(f"{size}: attach+snapshot+detach {wall:.0f} ms, app stall {gaps[-1]:.0f} ms")
    rows.append((size, app.objects, "attach + snapshot + detach", walls, gaps, files))
    app.quit()

    rec_out = os.path.join(args.out, f"record-{size}.snap")
    app = App([args.gcsnap, "record", "--policy", "none", "--force", "-o", rec_out, "--", "dotnet", args.app_dll, str(size)],
              env, os.path.join(args.out, f"record-{size}.err"))
    walls, gaps = [], []
    for rep in range(args.reps):
        app.maxgap()
        wall, _ = timed([args.gcsnap, "snapshot", str(app.pid)])
        gaps.append(settle(app))
        walls.append(wall)
        log(f"{size}: snapshot under record {wall:.0f} ms, app stall {gaps[-1]:.0f} ms")
    rows.append((size, app.objects, "snapshot under record --policy none", walls, gaps, None))
    app.quit()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="1000000")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--out", required=True)
    p.add_argument("--app-dll", required=True)
    p.add_argument("--gcsnap", required=True)
    args = p.parse_args()
    rows = []
    for size in [int(s) for s in args.sizes.split()]:
        run_size(args, size, dict(os.environ), rows)
    med = lambda xs: statistics.median(xs) if xs else None
    print(f"{'objects':>9}  {'action':<38} {'wall ms':>9} {'stall ms':>9} {'stall x plain':>13} {'file':>10}")
    plain = {}
    for size, objects, action, walls, gaps, files in rows:
        gap = med(gaps)
        if walls is None:
            plain[size] = gap
        ratio = f"{gap / plain[size]:.2f}" if plain.get(size) else "-"
        wall = f"{med(walls):.0f}" if walls else "-"
        size_text = f"{med(files) / 1048576:.1f} MiB" if files else "-"
        print(f"{objects:>9}  {action:<38} {wall:>9} {gap:>9.0f} {ratio:>13} {size_text:>10}")
    print(f"(medians of {args.reps}; the stall is the longest gap of the app's 1 ms ticker; "
          f"wall = the gcsnap command, for attach including the finished file and the detach)")


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        log(f"error: {e}")
        sys.exit(1)
