#!/usr/bin/env python3
"""Drive bench/stall_app for bench/pause.sh and print the snapshot-pause table.

Every row starts its own StallApp process (all rows of a size are alive together), waits for
"ready", resets the app's longest tick gap ("stats"), does the row's action, waits until the
row's background work is over (the snapshot file or the trace stops growing), and reads the
longest gap back ("stats"): that is the stall the app felt. Repetitions take turns across the
rows (rep 1 of every row, then rep 2, ...) so that a change in the machine's load falls on all
rows alike; each row shows the median. Ratios are taken within this run only, and the load
average is printed with the table.
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


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


# Every row is one app process started once; the repetitions of all rows then take turns
# (rep 1 of every row, then rep 2, ...), so that the machine's load drifts over all rows alike,
# and each repetition waits until the row's background work (the shim's writer, the trace's
# drain) is over, so that repetitions do not overlap.

class PlainRow:
    def __init__(self, args, n, env):
        self.app = App(["dotnet", args.app_dll, str(n)], env, f"{args.out}/plain-{n}.err")
        self.gc_ms = []

    def rep(self, args, rep):
        settle(self.app)
        done = self.app.cmd("gc", "gc done")
        self.gc_ms.append(float(re.search(r"ms=([0-9.]+)", done).group(1)))
        time.sleep(0.3)
        return self.app.maxgap()

    def finish(self, args):
        self.app.quit()
        return f"GC.Collect {statistics.median(self.gc_ms):.0f} ms" if self.gc_ms else ""


def thread_stats(pid, name):
    """(CPU ns, run-queue wait ns, minor faults) of PID's thread called NAME, or None."""
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            base = f"/proc/{pid}/task/{tid}"
            with open(f"{base}/comm") as f:
                if f.read().strip() != name:
                    continue
            with open(f"{base}/schedstat") as f:
                run_ns, wait_ns = (int(x) for x in f.read().split()[:2])
            with open(f"{base}/stat") as f:
                minflt = int(f.read().rsplit(")", 1)[1].split()[7])  # field 10 of stat
            return run_ns, wait_ns, minflt
    except OSError:
        pass
    return None


def last_walk_line(errpath):
    """(wall ms, CPU ms, page faults, ms naming new types or None, the GC before the walk as
    (wall ms, CPU ms) or None) from the shim's last 'heap walk' line (GCSNAP_WALK_TIMES=1;
    older shims print fewer figures)."""
    found = None
    try:
        with open(errpath) as f:
            for line in f:
                m = re.search(r"heap walk \d+: \d+ objects, ([0-9.]+) ms wall, ([0-9.]+) ms CPU, (\d+) page faults", line)
                if m:
                    named = re.search(r"types named in ([0-9.]+) ms", line)
                    before = re.search(r"the GC before it ([0-9.]+) ms wall, ([0-9.]+) ms CPU", line)
                    found = (float(m.group(1)), float(m.group(2)), int(m.group(3)),
                             float(named.group(1)) if named else None,
                             (float(before.group(1)), float(before.group(2))) if before else None)
    except OSError:
        pass
    return found


def stats_delta(before, after):
    return tuple(a - b for a, b in zip(after, before)) if before and after else None


class SnapshotRow:
    def __init__(self, args, n, env, walk_only, fields=True, shim=None, tag=None, source="profiler"):
        self.walk_only = walk_only
        tag = tag or ('walk' if walk_only else 'shim' if fields else 'nofields')
        self.snap = f"{args.out}/pause-{n}-{tag}.snap"
        if os.path.exists(self.snap):
            os.unlink(self.snap)
        self.env = dict(env)
        if shim:
            self.env["GCSNAP_SHIM"] = shim
        self.env["GCSNAP_WALK_ONLY"] = "1" if walk_only else "0"
        self.env["GCSNAP_WALK_TIMES"] = "1"  # the shim prints each walk's own CPU time (docs/shim.md)
        # The shim starts with `record`, so the app inherits GCSNAP_FIELDS (field names' cost).
        self.env["GCSNAP_FIELDS"] = "1" if fields else "0"
        # SOURCE events: the walk is the heap-dump session's around the forced GC (docs/shim.md "Sources").
        cmd = [args.gcsnap, "record", "-o", self.snap, "--source", source, "--policy", "none", "--", "dotnet",
               args.app_dll, str(n)]
        self.app = App(cmd, self.env, f"{self.snap}.err")
        self.walls, self.writes = [], []
        self.gc_thread, self.chunk_cpu = [], []  # per rep: (cpu, wait, faults) deltas; chunk-pool CPU
        self.walks = []  # per rep: (wall ms, CPU ms, page faults) of the heap walk itself (GCSNAP_WALK_TIMES)

    def rep(self, args, rep):
        settle(self.app)
        # The forced GC of an on-demand snapshot, heap walk included, runs on the shim's control
        # thread: its CPU (and page faults) say what the walk cost without the machine's noise.
        gc_before = thread_stats(self.app.pid, "gcsnap-control")
        chunks_before = thread_stats(self.app.pid, "gcsnap-chunks")
        t0 = time.time()
        r = subprocess.run([args.gcsnap, "snapshot", str(self.app.pid)], capture_output=True, text=True,
                           env=self.env, timeout=600)
        self.walls.append(time.time() - t0)
        if r.returncode != 0:
            raise RuntimeError(f"gcsnap snapshot failed: {r.stderr.strip()}")
        # The command returns once the GC is recorded; the writer thread then encodes the walk.
        # Wait for it (the file stops growing) before the next repetition of any row.
        self.writes.append(wait_file_quiet(self.snap, 1.0, 300) - t0)
        gc = stats_delta(gc_before, thread_stats(self.app.pid, "gcsnap-control"))
        if gc:
            self.gc_thread.append(gc)
        chunks = stats_delta(chunks_before, thread_stats(self.app.pid, "gcsnap-chunks"))
        if chunks:
            self.chunk_cpu.append(chunks[0])
        walk = last_walk_line(f"{self.snap}.err")
        if walk:
            self.walks.append(walk)
        return self.app.maxgap()

    def gc_thread_summary(self):
        """Medians over the reps: GC-thread CPU ms, its run-queue wait ms, its minor faults, the
        chunk-pool thread's CPU ms (None where the threads were not found)."""
        if not self.gc_thread:
            return None
        med = lambda xs: statistics.median(xs) if xs else None
        return (med([g[0] / 1e6 for g in self.gc_thread]), med([g[1] / 1e6 for g in self.gc_thread]),
                med([g[2] for g in self.gc_thread]), med([c / 1e6 for c in self.chunk_cpu]),
                med([w[0] for w in self.walks]), med([w[1] for w in self.walks]), med([w[2] for w in self.walks]),
                [w[1] for w in self.walks])

    def finish(self, args):
        self.app.quit()
        note = f"snapshot cmd {statistics.median(self.walls) * 1000:.0f} ms" if self.walls else ""
        if self.writes and not self.walk_only:
            note += f", written by {statistics.median(self.writes):.1f} s"
        if not self.walk_only and os.path.exists(self.snap):
            info = subprocess.run([args.gcsnap, "info", self.snap], capture_output=True, text=True)
            walked = [ln.split() for ln in info.stdout.splitlines()
                      if re.match(r"\s*\d+\s+gen", ln) and ln.split()[4] != "none"]
            if walked:
                note += f"; {walked[-1][8]} objects in the last snapshot"
            note += f"; file {os.path.getsize(self.snap) / 1e6:.1f} MB"
        if os.path.exists(self.snap) and not args.keep:
            os.unlink(self.snap)
        return note


class EventPipeRow:
    def __init__(self, args, n, env):
        if not args.dotnet_trace or not os.path.exists(args.dotnet_trace):
            raise RuntimeError(f"dotnet-trace unavailable ({args.trace_note})")
        self.n, self.env = n, env
        self.app = App(["dotnet", args.app_dll, str(n)], env, f"{args.out}/eventpipe-{n}.err")
        self.sizes = []

    def rep(self, args, rep):
        app, n = self.app, self.n
        settle(app)
        trace = f"{args.out}/heap-{n}-{rep}.nettrace"
        if os.path.exists(trace):
            os.unlink(trace)
        before = gen2_count(app)
        tr = subprocess.Popen([args.dotnet_trace, "collect", "-p", str(app.pid), "--providers",
                               "Microsoft-Windows-DotNETRuntime:0x1980001:5", "--buffersize", "1024",
                               "-o", trace], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=open(f"{args.out}/dotnet-trace-{n}-{rep}.err", "w"), env=self.env,
                              start_new_session=True)
        # The session's ManagedHeapCollect keyword forces a full GC that walks the heap.
        # Its GC does not always show in GC.CollectionCount(2) (seen at 1 M objects: the loop
        # then waited out its deadline), so a trace past 4 MB that stopped growing ends it too.
        deadline = time.time() + 300
        last_size, quiet_since = -1, time.time()
        while gen2_count(app) == before and time.time() < deadline and tr.poll() is None:
            size = os.path.getsize(trace) if os.path.exists(trace) else 0
            if size != last_size:
                last_size, quiet_since = size, time.time()
            elif size > 4_000_000 and time.time() - quiet_since >= 1.0:
                break
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
        gap = app.maxgap()
        if os.path.exists(trace):
            self.sizes.append(os.path.getsize(trace))
            if not args.keep:
                os.unlink(trace)
        return gap

    def finish(self, args):
        self.app.quit()
        note = "dotnet-trace collect, keywords 0x1980001"
        if self.sizes:
            note += f"; trace {statistics.median(self.sizes) / 1e6:.0f} MB"
        return note


class AttachRow:
    """The first snapshot of a process started without gcsnap: every repetition starts a new
    app, `gcsnap snapshot PID -o FILE` attaches the shim, forces the GC with its heap walk,
    finishes the file and detaches; the stall is the longest tick gap over all of that."""

    def __init__(self, args, n, env, shim=None, tag="attach", walk_only=False):
        self.n, self.tag = n, tag
        self.env = dict(env)
        if shim:
            self.env["GCSNAP_SHIM"] = shim  # the CLI loads this build into the app
        # The attached shim reads the measuring aids from the app's environment (docs/shim.md).
        self.env["GCSNAP_WALK_TIMES"] = "1"
        self.env["GCSNAP_WALK_ONLY"] = "1" if walk_only else "0"
        self.err = f"{args.out}/{tag}-{n}.err"
        self.app = self.start(args)
        self.walls, self.walks = [], []

    def start(self, args):
        return App(["dotnet", args.app_dll, str(self.n)], self.env, self.err)

    def rep(self, args, rep):
        if self.app is None:
            self.app = self.start(args)
        settle(self.app)
        out = f"{args.out}/{self.tag}-{self.n}-{rep}.snap"
        if os.path.exists(out):
            os.unlink(out)
        t0 = time.time()
        r = subprocess.run([args.gcsnap, "snapshot", str(self.app.pid), "-o", out], capture_output=True, text=True,
                           env=self.env, timeout=600)
        self.walls.append(time.time() - t0)
        if r.returncode != 0:
            raise RuntimeError(f"gcsnap snapshot (attach) failed: {r.stderr.strip()}")
        time.sleep(0.3)
        gap = self.app.maxgap()
        walk = last_walk_line(self.err)
        if walk:
            self.walks.append(walk)
        self.app.quit()
        self.app = None if rep + 1 < args.reps else self.app
        if os.path.exists(out) and not args.keep:
            os.unlink(out)
        return gap

    def finish(self, args):
        if self.app is not None:
            self.app.quit()
        note = f"attach + snapshot + detach {statistics.median(self.walls) * 1000:.0f} ms; a new app per run" \
            if self.walls else ""
        if self.walks:
            med = lambda xs: statistics.median(xs) if xs else None
            note += (f"; walk CPU {med([w[1] for w in self.walks]):.0f} ms "
                     f"({', '.join(fmt_ms(w[1]) for w in self.walks)}), walk wall {med([w[0] for w in self.walks]):.0f} ms, "
                     f"walk faults {med([w[2] for w in self.walks]):.0f}")
            before = [w[4] for w in self.walks if len(w) > 4 and w[4] is not None]
            if before:
                note += (f"; the GC before the walk {med([b[1] for b in before]):.0f} ms CPU "
                         f"({', '.join(fmt_ms(b[1]) for b in before)}), {med([b[0] for b in before]):.0f} ms wall")
            named = [w[3] for w in self.walks if w[3] is not None]
            if named:
                note += f", naming new types {med(named):.0f} ms of the walk"
            ATTACH_WALK[(self.n, self.tag)] = med([w[1] for w in self.walks])
        return note


def make_row(name, args, n, env):
    if name == "plain":
        return PlainRow(args, n, env)
    if name == "walk":
        return SnapshotRow(args, n, env, True)
    if name == "shim":
        return SnapshotRow(args, n, env, False)
    if name == "nofields":
        return SnapshotRow(args, n, env, False, fields=False)
    if name == "events":
        return SnapshotRow(args, n, env, False, tag="events", source="events")
    if name == "eventpipe":
        return EventPipeRow(args, n, env)
    if name == "attach":
        return AttachRow(args, n, env)
    if name == "attach_walk":
        return AttachRow(args, n, env, tag="attach_walk", walk_only=True)
    if name == "attach_b":
        if not args.shim_b:
            raise RuntimeError("row attach_b needs GCSNAP_SHIM_B (another build of the shim)")
        return AttachRow(args, n, env, shim=args.shim_b, tag="attach_b")
    if name == "shim_b":
        if not args.shim_b:
            raise RuntimeError("row shim_b needs GCSNAP_SHIM_B (another build of the shim)")
        return SnapshotRow(args, n, env, False, shim=args.shim_b, tag="shim_b")
    raise SystemExit(f"unknown row {name}")


GC_THREAD = {}  # (n, row) -> SnapshotRow.gc_thread_summary()
ATTACH_WALK = {}  # (n, attach row) -> median walk CPU ms of its first snapshots


def run_size(args, n, env, rows):
    """All rows of one heap size, repetitions interleaved. Returns {row: (objects, gaps, note)}."""
    live, results = {}, {}
    for name in rows:  # started one after the other: building a heap is not measured
        log(f"n={n}: starting {name}")
        try:
            live[name] = make_row(name, args, n, env)
        except Exception as e:  # the row says what failed; the others still run
            results[name] = (None, [], f"FAILED: {e}")
    gaps = {name: [] for name in live}
    for rep in range(args.reps):
        for name in list(live):
            try:
                gaps[name].append(live[name].rep(args, rep))
                log(f"n={n} rep {rep + 1}: {name}: {gaps[name][-1]:.0f} ms (load {load_average()})")
            except Exception as e:
                results[name] = (live[name].app.objects if live[name].app else n, gaps[name], f"FAILED: {e}")
                try:
                    live[name].app and live[name].app.quit()
                except Exception:
                    pass
                del live[name]
    for name, row in live.items():
        if isinstance(row, SnapshotRow) and row.gc_thread_summary():
            GC_THREAD[(n, name)] = row.gc_thread_summary()
        results[name] = (row.app.objects if row.app else n, gaps[name], row.finish(args))
    return {name: results[name] for name in rows if name in results}


def gen2_count(app):
    line = app.cmd("gcs", "gcs ")
    return int(re.search(r"gen2=(\d+)", line).group(1))


def wait_file_quiet(path, quiet_s, timeout_s):
    """Wait until PATH has not grown for QUIET_S seconds; return when it last grew."""
    deadline = time.time() + timeout_s
    last, since = -1, time.time()
    while time.time() < deadline:
        size = os.path.getsize(path) if os.path.exists(path) else -1
        if size != last:
            last, since = size, time.time()
        elif time.time() - since >= quiet_s and size > 0:
            break
        time.sleep(0.05)
    return since


def fmt_ms(v):
    return f"{v:.0f}" if v >= 10 else f"{v:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000000 5000000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("--app-dll", required=True)
    ap.add_argument("--app-name", default="stall_app")
    ap.add_argument("--gcsnap", required=True)
    ap.add_argument("--dotnet-trace", default="")
    ap.add_argument("--trace-note", default="not installed")
    ap.add_argument("--rows", default="plain,walk,shim,eventpipe")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--shim-b", default=os.environ.get("GCSNAP_SHIM_B", ""))
    args = ap.parse_args()
    env = dict(os.environ)
    rows = args.rows.split(",")
    results = {}
    load_before = load_average()
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    for n in [int(s) for s in args.sizes.split()]:
        for name, res in run_size(args, n, env, rows).items():
            results[(n, name)] = res
            log(f"n={n}: {name}: gaps {res[1]} {res[2]}")
    load_after = load_average()
    labels = {
        "plain": "a plain full blocking GC, no profiler",
        "walk": "gcsnap snapshot, GCSNAP_WALK_ONLY=1 (runtime walk only)",
        "shim": "gcsnap snapshot (record --policy none)",
        "nofields": "gcsnap snapshot, GCSNAP_FIELDS=0 (no field names)",
        "shim_b": "gcsnap snapshot, shim B (GCSNAP_SHIM_B, A/B)",
        "events": "gcsnap snapshot (record --source events --policy none)",
        "eventpipe": "EventPipe heap dump (dotnet-trace, gcdump keywords)",
        "attach": "first snapshot of a process, by attach (gcsnap snapshot)",
        "attach_b": "first snapshot by attach, shim B (GCSNAP_SHIM_B, A/B)",
        "attach_walk": "first walk by attach, GCSNAP_WALK_ONLY=1 (runtime walk only)",
    }
    print(f"snapshot pause (bench/pause.sh; longest tick gap of bench/{args.app_name}, median of {args.reps}, rows "
          f"interleaved; ratios within this run)")
    print(f"run started {started}; load average {load_before} at the start, {load_after} at the end "
          f"({os.cpu_count()} CPUs)")
    print(f"| {'objects':>9} | {'what the app went through':56} | {'stall ms':>8} | {'runs (ms)':24} | notes |")
    print(f"|{'-' * 11}|{'-' * 58}|{'-' * 10}|{'-' * 26}|-------|")
    medians = {}
    for (n, name), (objects, gaps, note) in results.items():
        med = statistics.median(gaps) if gaps else None
        medians[(n, name)] = med
        runs = ", ".join(fmt_ms(g) for g in gaps) if gaps else "-"
        print(f"| {objects or n:>9} | {labels[name]:56} | {fmt_ms(med) if med is not None else '-':>8} | {runs:24} | {note} |")
    print()
    # Issue 33's targets (moonshot 1.05x walk-only, 0.9x EventPipe); the attach row is the same
    # snapshot taken as the first one of a process started without gcsnap.
    print("| objects | snapshot / walk-only (target <= 1.1) | snapshot / EventPipe dump (target < 1.0) "
          "| attach / walk-only (target <= 1.1) | attach / walk-only by attach | walk-only / plain GC |")
    print("|---|---|---|---|---|---|")
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
        print(f"| {n} | {ratio('shim', 'walk', 1.1)} | {ratio('shim', 'eventpipe', 1.0, True)} "
              f"| {ratio('attach', 'walk', 1.1)} | {ratio('attach', 'attach_walk')} | {ratio('walk', 'plain')} |")
    if GC_THREAD:
        print()
        print("The GC thread (gcsnap-control, where the forced GC runs) per snapshot, medians: the whole GC's CPU,")
        print("its run-queue wait (time it was ready but had no CPU: the busy machine's share of the stall) and")
        print("page faults; the heap walk alone (first object to GC end, the shim's GCSNAP_WALK_TIMES line);")
        print("the chunk pool's thread. CPU figures hold still on a busy machine where wall figures do not.")
        print("| objects | row | GC CPU ms | run-queue wait ms | GC page faults | walk wall ms | walk CPU ms (runs) | walk faults | chunk-pool CPU ms | walk CPU / walk-only |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        fmt = lambda v, spec=".0f": format(v, spec) if v is not None else "-"
        for (n, name), (cpu, wait, faults, chunks, wwall, wcpu, wfaults, wruns) in GC_THREAD.items():
            walk = GC_THREAD.get((n, "walk"))
            rel = f"{wcpu / walk[5]:.2f}" if walk and walk[5] and wcpu is not None else "-"
            runs = ", ".join(fmt_ms(x) for x in wruns)
            print(f"| {n} | {name} | {fmt(cpu)} | {fmt(wait)} | {fmt(faults)} | {fmt(wwall)} | {fmt(wcpu)} ({runs}) "
                  f"| {fmt(wfaults)} | {fmt(chunks)} | {rel} |")
    if ATTACH_WALK:
        print()
        print("| objects | first snapshot by attach | walk CPU ms | / walk-only walk CPU | / walk-only by attach |")
        print("|---|---|---|---|---|")
        for (n, name), cpu in ATTACH_WALK.items():
            walk = GC_THREAD.get((n, "walk"))
            rel = f"{cpu / walk[5]:.2f}" if walk and walk[5] else "-"
            by_attach = ATTACH_WALK.get((n, "attach_walk"))
            rel_attach = f"{cpu / by_attach:.2f}" if by_attach else "-"
            print(f"| {n} | {name} | {cpu:.0f} | {rel} | {rel_attach} |")
    if "shim_b" in rows or "attach_b" in rows:
        print()
        print("| objects | shim B / shim stall (A/B, same run) | attach B / attach stall |")
        print("|---|---|---|")
        for n in sorted({k[0] for k in medians}):
            x, y = medians.get((n, "shim_b")), medians.get((n, "shim"))
            a, b = medians.get((n, "attach_b")), medians.get((n, "attach"))
            print(f"| {n} | {x / y if x and y else float('nan'):.2f} | {a / b if a and b else float('nan'):.2f} |")
    if "events" in rows:
        # Issue 48's target: a walk in events mode stalls no longer than the EventPipe dump
        # (moonshot 0.9x); and against the profiler source's walk of the same heap.
        print()
        print("| objects | events snapshot / EventPipe dump (target <= 1.0) | events / profiler snapshot | events / walk-only |")
        print("|---|---|---|---|")
        for n in sorted({k[0] for k in medians}):
            e, d, p, w = (medians.get((n, r)) for r in ("events", "eventpipe", "shim", "walk"))
            fmt = lambda x, y: f"{x / y:.2f}" if x and y else "-"
            verdict = f" ({'holds' if e / d <= 1.0 else 'NO'})" if e and d else ""
            print(f"| {n} | {fmt(e, d)}{verdict} | {fmt(e, p)} | {fmt(e, w)} |")
    if "nofields" in rows:
        print()
        print("| objects | snapshot with field names / GCSNAP_FIELDS=0 | (GCSNAP_FIELDS=0) / walk-only |")
        print("|---|---|---|")
        for n in sorted({k[0] for k in medians}):
            x, y, w = medians.get((n, "shim")), medians.get((n, "nofields")), medians.get((n, "walk"))
            print(f"| {n} | {x / y if x and y else float('nan'):.2f} | {y / w if y and w else float('nan'):.2f} |")


if __name__ == "__main__":
    main()
