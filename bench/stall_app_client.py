"""The client side of bench/stall_app's stdin protocol, shared by the bench drivers
(pause_drive.py, attach_drive.py): start the app, wait for "ready", send commands, read the
longest tick gap ("stats"), quit."""
import re
import select
import subprocess
import time


class App:
    """A StallApp process, optionally under `gcsnap record`."""

    def __init__(self, cmd, env, errpath, timeout=900):
        self.err = open(errpath, "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     env=env, text=True, bufsize=1)
        line = self.expect("stall-app: ready", timeout)
        m = re.search(r"pid=(\d+) objects=(\d+)", line)
        self.pid, self.objects = int(m.group(1)), int(m.group(2))

    def expect(self, prefix, timeout=900):
        deadline = time.time() + timeout
        while time.time() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.time()))
            if not ready:
                break
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"app exited (code {self.proc.poll()}) while waiting for '{prefix}'")
            if line.startswith(prefix):
                return line.strip()
        raise RuntimeError(f"timed out waiting for '{prefix}'")

    def cmd(self, text, reply):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        return self.expect(reply)

    def maxgap(self):
        return float(re.search(r"maxgap_ms=([0-9.]+)", self.cmd("stats", "stats ")).group(1))

    def quit(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=900)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        self.err.close()
