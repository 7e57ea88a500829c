#!/usr/bin/env python3
"""`demo-cpu`: what `conftui demo` costs, in a release and in a debug build, measured in the same run.

Why: `make run` starts the release build because a debug build's unoptimised Swift leaves a 2-core machine no CPU
to spare with four real-time participants in one process; this step keeps the figure behind that choice current.
Each build runs `BIN demo --peers 3 --name Sam` (an in-process server and three participants over real WebRTC) in
a 120x40 tmux (TERM=xterm-256color outside, tmux-256color in the pane, no COLORTERM: 256 colours). Once Ada, Grace
and Linus show `connected`, and after a warm-up, it measures over a window:

- CPU: utime + stime of the process from /proc/PID/stat (every thread), as % of one core;
- terminal bytes: what the demo writes to its terminal, from tmux `pipe-pane -o` into a file, in kB/s (1,000 B).

Runs alternate release, debug, release, debug (`--runs` of each), so the machine's noise falls on both builds;
the table gives each build's median, its runs in brackets, and the debug/release ratios.

Usage: demo_cpu.py RELEASE_BIN [--debug DEBUG_BIN] [--runs 2] [--seconds 20] [--warmup 5] [--peers 3]
"""
import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from testsupport.tmux import TmuxSession  # noqa: E402

NAMES = ["Ada", "Grace", "Linus", "Radia", "Barbara", "Edsger", "Donald", "Frances", "John", "Ken", "Dennis"]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of the whole process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS       # fields 14 and 15 of proc(5), after pid and comm


def all_connected(names):
    def check(screen):
        lines = screen.splitlines()
        return all(any(n in line and "connected" in line for line in lines) for n in names)
    return check


def measure(binary, options):
    """One run of the demo: (CPU % of one core, terminal kB/s) over the window."""
    names = NAMES[:options.peers]
    session = TmuxSession(f"{binary} demo --peers {options.peers} --name Sam", 120, 40,
                          env={"TERM": "xterm-256color", "COLORTERM": ""})
    out = pathlib.Path(tempfile.mkdtemp(prefix="conftui-demo-cpu-")) / "terminal"
    try:
        session.wait_for(all_connected(names), timeout=options.connect_timeout, what=f"{', '.join(names)} connected")
        pid = session.app_pid()
        if pid is None:
            raise AssertionError(f"no conftui process under the pane\n{session.describe()}")
        time.sleep(options.warmup)
        session._tmux("pipe-pane", "-o", f"cat >> {out}")
        started, cpu0 = time.monotonic(), cpu_seconds(pid)
        size0 = out.stat().st_size if out.exists() else 0
        time.sleep(options.seconds)
        cpu1, elapsed = cpu_seconds(pid), time.monotonic() - started
        size1 = out.stat().st_size if out.exists() else 0
        session._tmux("pipe-pane")                               # stops the pipe
        screen = session.capture()
        if not all_connected(names)(screen):
            raise AssertionError(f"a participant was no longer connected at the end of the window\n{screen}")
        session.send("q")
        status = session.wait_exit(timeout=20)
        if status != 0:
            raise AssertionError(f"the demo exited with status {status} after q")
        return 100 * (cpu1 - cpu0) / elapsed, (size1 - size0) / elapsed / 1000
    finally:
        session.close()
        if out.exists():
            out.unlink()
        out.parent.rmdir()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("release", help="the release build's conftui")
    ap.add_argument("--debug", help="the debug build's conftui (without it only the release build is measured)")
    ap.add_argument("--runs", type=int, default=2, help="runs of each build, alternating (default 2)")
    ap.add_argument("--seconds", type=float, default=20.0, help="the measured window (default 20 s)")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds after all connected before it (default 5)")
    ap.add_argument("--peers", type=int, default=3, help="synthetic participants (default 3)")
    ap.add_argument("--connect-timeout", type=float, default=60.0)
    options = ap.parse_args()
    builds = [("release", options.release)] + ([("debug", options.debug)] if options.debug else [])
    for name, path in builds:
        if not os.access(path, os.X_OK):
            print(f"demo_cpu: no {name} binary at {path}", file=sys.stderr)
            return 2

    print(f"`conftui demo --peers {options.peers}` in a 120x40 tmux (256 colours); after all connected, "
          f"{options.warmup:g} s of warm-up, then {options.seconds:g} s measured; {options.runs} runs of each build, "
          f"alternating {', '.join(b for b, _ in builds)}; load average at the start "
          + " / ".join(f"{x:.2f}" for x in os.getloadavg()) + ".")
    print()
    results = {name: [] for name, _ in builds}
    try:
        for run in range(options.runs):
            for name, path in builds:
                cpu, kbps = measure(path, options)
                results[name].append((cpu, kbps))
                print(f"run {run + 1} {name}: CPU {cpu:.1f} % of a core, terminal {kbps:.1f} kB/s", flush=True)
    except AssertionError as error:
        print(f"demo_cpu: {error}", file=sys.stderr)
        return 1

    print()
    print("| build | CPU, % of one core | terminal kB/s |")
    print("|---|---|---|")
    medians = {}
    for name, _ in builds:
        cpus, rates = [r[0] for r in results[name]], [r[1] for r in results[name]]
        medians[name] = (statistics.median(cpus), statistics.median(rates))
        print(f"| {name} | {medians[name][0]:.1f} ({', '.join(f'{c:.1f}' for c in cpus)}) "
              f"| {medians[name][1]:.1f} ({', '.join(f'{r:.1f}' for r in rates)}) |")
    print()
    if "debug" in medians and medians["release"][0] > 0 and medians["release"][1] > 0:
        (rc, rk), (dc, dk) = medians["release"], medians["debug"]
        print(f"debug / release: CPU {dc / rc:.2f} ×, terminal bytes {dk / rk:.2f} × (medians; each run in brackets)")
    else:
        print("release build only (no --debug): no ratio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
