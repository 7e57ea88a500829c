#!/usr/bin/env python3
"""Runs the steps of `make bench` and writes their tables into docs/benchmarks.md.

Each step's standard output is shown on the terminal as it comes and kept; its standard error goes to the terminal
only. When every step has run, the page is assembled: a header (generated, not to be edited; the commit, "+dirty"
when the tree has uncommitted changes; the UTC date; the machine), then one section per step with what it measures,
what it is compared against, and its output as printed (markdown tables as tables, the rest in a fenced block).

The page is written to a temporary file beside its target and moved into place only when every step passed. When a
step fails, the target is left as it was, the page (with the failed step marked) goes to bench-results/, and the
exit status is 1. A subset of the steps (`--steps renderer,media`, `make bench BENCH=renderer,media`) writes
benchmarks.md under bench-results/ instead, saying which steps ran, so that a quick check never replaces the full page.

Usage: write_benchmarks.py --bin DIR [--bin-debug DIR] [--python PY] [--clips DIR] [--netbench-repeat N] [--steps a,b] [--out FILE]
       [--dry-run] [--list]
"""

import argparse
import datetime
import os
import pathlib
import platform
import resource
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
FULL_OUT = ROOT / "docs" / "benchmarks.md"
PARTIAL_OUT = ROOT / "bench-results" / "benchmarks.md"


class Step:
    def __init__(self, name, title, about, command, env=None):
        self.name, self.title, self.about = name, title, about
        self.command = command      # a function of the options, returning argv
        self.env = env or {}


def bench(suite):
    return lambda o: [str(o.bin / "conftui-bench"), suite]


def script(name, *extra):
    return lambda o: [o.python, str(ROOT / "Tests" / "Bench" / name), str(o.bin / "conftui"), *extra]


# In the order `make bench` runs them. `about` is one sentence: what the step measures and what it is compared
# against (docs/bench-methods.md tells how each rig is built).
STEPS = [
    Step("renderer", "Renderer",
         "Bytes per frame, picture quality (PSNR of what a model terminal shows, per pixel and on 2x2 means) and CPU "
         "per frame of the half-block renderer on the three benchmark clips, against a naive full redraw of every "
         "cell (what mpv's `--vo=tct` does) run in the same process on the same frames.",
         bench("renderer")),
    Step("media", "Media codecs",
         "CPU per frame of VP8 encode and decode and of Opus encode plus decode (thread CPU time, release build), and "
         "whether the test card's code strip reads back after VP8; the codecs alone, the baseline of the next step.",
         bench("media")),
    Step("rtp", "RTP media per stream",
         "CPU per sent and received 320x240 at 15 fps stream between two in-process peer connections (real ICE, DTLS "
         "and SRTP on a virtual clock), against the codecs timed in the same run; two `Call`s in real time over "
         "loopback UDP; and the packet-to-frame latency the jitter buffer adds on a seeded lossy, reordering network.",
         bench("rtp")),
    Step("churn", "Join/leave churn",
         "Resident memory of one `Call` while 500 peers join and leave it (one in ten with a full handshake), against "
         "the baseline read after a warm-up of 60; the test `CallChurnTests` allows 1.10 × at most.",
         bench("churn")),
    Step("rooms", "A room on the virtual clock",
         "Seconds of a four-member mesh call (joins, media both ways, a leave, a signaling loss and reconnect) that "
         "one wall-clock second simulates, on a clean and a 5 % lossy emulated link: the speed of the room-level "
         "tests (`CallCoreRoomTests`); real time, 1 ×, is the baseline.",
         bench("rooms")),
    Step("signaling-burst", "Signaling load: issue #13's workload",
         "CPU per forwarded message, forward latency and peak memory of `conftui serve` under 200 clients in 20 rooms "
         "each sending 30 offers of 3 KB as fast as they can (`--rate 0 --offers 30`), against a minimal Python "
         "`websockets` relay run in the same rounds.",
         script("signaling_load.py", "--rate", "0", "--offers", "30", "--no-hostile")),
    Step("signaling", "Signaling load: paced, and hostile clients",
         "The same measures at the default pace of 5,000 offers a second in all, against the same relay, then the "
         "worst latency of a probe (`GET /healthz` and a forwarded offer every 20 ms) while hostile clients send a "
         "120,000-key object, 1 MiB of `[` and a flood of candidates, on both servers.",
         script("signaling_load.py")),
    Step("connect", "Time from offer to connected",
         "Median time from creating an offer to `connected` (ICE, DTLS and SRTP up) on loopback through one "
         "`conftui serve`, for conftui and aiortc in each role, against aiortc↔aiortc as the baseline.",
         script("connect_time.py")),
    Step("room", "The call: a 4-party room",
         "Join to first remote frame for `conftui join` and for headless Chromium, glass-to-glass latency from the "
         "bots' test cards to the join's terminal, and CPU and terminal bytes per second of every participant in one "
         "room of a join, two bots and Chromium; Chromium in the same room is the comparison.",
         script("room_bench.py")),
    Step("demo-cpu", "The demo in a release and a debug build",
         "CPU (% of one core, every thread) and terminal bytes a second of `conftui demo --peers 3` in a 120x40 tmux "
         "once everyone is connected, the release build against the debug build, runs alternating in the same run "
         "(why `make run` starts the release build).",
         lambda o: script("demo_cpu.py", *(["--debug", str(o.bin_debug / "conftui")] if o.bin_debug else []))(o)),
    Step("chat", "Chat and files beside Chromium",
         "Chat round trip p50/p95 (200 pings after a warm-up, one in flight) and file throughput (20 MB, 50 MB when "
         "that takes under 2 s; receiver's accept to last byte, sha256 checked) on loopback for conftui↔conftui, "
         "conftui↔Chromium both ways and Chromium↔Chromium, the last being the bar (ratios and ✓/✗ from the same "
         "run); then a 1 MB file from behind a 1 Mbit/s site of the emulated internet while media flows, as kbit/s "
         "and share of the link (needs root).",
         script("chat_bench.py")),
    Step("sctp-core", "The SCTP core beside usrsctp",
         "CPU per MB and per message of the Swift SCTP core (two `DataChannels` back to back in one process, no "
         "DTLS) against Debian's usrsctp 0.9.5 doing the same in a small C program (Tests/Bench/usrsctp_pair.c): "
         "200 MB as 64 KiB messages and 100,000 × 1 KiB, runs alternating; with the code size of each.",
         script("sctp_core_bench.py")),
    Step("sfu", "Rooms beyond the mesh: Janus beside the mesh",
         "Per-participant CPU, uplink and downlink, decoded frames per second of every subscription and the first-frame "
         "time of a bot joining a running room, for N = 4, 6, 8 and 10 conftui bots (320x240 at 15 fps) in a SkyRTC "
         "mesh through `conftui serve` and in one Janus 1.1.2 VideoRoom (`--sfu janus`), with Janus's own CPU; the "
         "mesh measured in the same run is the baseline (needs root: the emulated internet's public namespace).",
         script("sfu_bench.py")),
    Step("network", "Congestion control beside Chromium",
         "Utilisation, queue drops, frame rate, freezes and the queue a call keeps standing (probe RTT) behind an "
         "emulated bottleneck of 500 kbit/s, of 1 Mbit/s with 2 % loss, and RFC 8867's changing capacity, for "
         "conftui and Chromium as sender and receiver in every pairing, Chromium↔Chromium being the bar; needs root.",
         lambda o: script("network_bench.py", "--repeat", str(o.netbench_repeat))(o)),
]


def git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()


def commit():
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    # The page itself is what this run rewrites: a change to it alone does not make the measured tree dirty.
    changes = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs/benchmarks.md")
    return head + ("+dirty" if changes else "")


def machine():
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} CPUs (nproc), {model or platform.machine()}; Linux {platform.release()}; load average " \
           f"at the start {load}"


def run_step(step, options):
    """Runs one step, echoing its standard output as it comes; returns (exit status, output, seconds)."""
    argv = step.command(options)
    print(f"\n=== bench step {step.name}: {shlex.join(argv)}", flush=True)
    if options.dry_run:
        return 0, f"(dry run: {shlex.join(argv)})\n", 0.0
    env = dict(os.environ, PYTHONUNBUFFERED="1", CONFTUI_CLIPS=str(options.clips), **step.env)
    # Line-buffer the Swift binary's stdio too, so the terminal sees its rows as they are measured.
    if argv[0].endswith("conftui-bench") and have("stdbuf"):
        argv = ["stdbuf", "-oL", *argv]
    started = time.monotonic()
    lines = []
    try:
        with subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, errors="replace") as proc:
            for line in proc.stdout:
                sys.stdout.write(line)
                sys.stdout.flush()
                lines.append(line)
            status = proc.wait()
    except OSError as error:
        lines.append(f"could not start: {error}\n")
        status = 127
    return status, "".join(lines), time.monotonic() - started


def have(program):
    return any(os.access(os.path.join(d, program), os.X_OK) for d in os.environ.get("PATH", "").split(os.pathsep))


def as_markdown(output):
    """The output as printed: runs of markdown table lines stay tables, everything else goes in fenced blocks."""
    blocks, text = [], []
    lines = output.rstrip("\n").split("\n") if output.strip() else []
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            if text:
                blocks.append(fenced(text))
                text = []
            table = []
            while i < len(lines) and lines[i].startswith("|"):
                table.append(lines[i])
                i += 1
            blocks.append("\n".join(table))
        else:
            text.append(lines[i])
            i += 1
    if text:
        blocks.append(fenced(text))
    return "\n\n".join(blocks) if blocks else "(no output)"


def fenced(lines):
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    fence = "```"
    while any(line.startswith(fence) for line in lines):
        fence += "`"
    return fence + "text\n" + "\n".join(lines) + "\n" + fence if lines else ""


def page(results, options, started, finished):
    ran = [s.name for s, _ in results]
    not_run = [s.name for s in STEPS if s.name not in ran]
    failed = [s.name for s, r in results if r[0] != 0]
    out = ["# Benchmarks", "",
           "<!-- Generated by `make bench` (Tests/Bench/write_benchmarks.py). Do not edit by hand: run `make bench`. -->",
           "",
           "Generated by `make bench`; do not edit this page by hand. The figures are one run's, on the machine below, "
           "often with other work running: compare rows measured in the same run (each step runs its baseline "
           "beside it) rather than absolute times across runs. How each step is built, and how to run one alone: "
           f"[bench-methods.md]({options.methods_link}).", "",
           f"- Commit: `{options.commit}`",
           f"- Measured: {started:%Y-%m-%d %H:%M}–{finished:%H:%M} UTC",
           f"- Machine: {options.machine}"]
    if options.dry_run:
        out.append("- **Dry run**: the commands below were listed, not run.")
    if not_run:
        out.append(f"- **Partial run**: only {', '.join(ran)} ran; not run: {', '.join(not_run)}.")
    if failed:
        out.append(f"- **Failed**: {', '.join(failed)} (see the section).")
    out.append("")
    for step, (status, output, seconds) in results:
        out += [f"## {step.title} (`{step.name}`)", "", step.about, ""]
        if status != 0:
            out += [f"**This step failed (exit status {status}); its output up to the failure:**", ""]
        argv = shlex.join(step.command(options)).replace(str(ROOT) + "/", "")
        ran_line = f"Would run `{argv}`." if options.dry_run else f"Ran `{argv}` in {seconds:.0f} s."
        out += [ran_line, "", as_markdown(output), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def write_atomically(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", type=pathlib.Path, help="directory of the release conftui and conftui-bench")
    ap.add_argument("--bin-debug", type=pathlib.Path, help="directory of the debug conftui (the demo-cpu step "
                    "measures it beside the release one; without it, the release build only)")
    ap.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"), help="Python with aiortc (.venv)")
    ap.add_argument("--clips", type=pathlib.Path, default=pathlib.Path(os.environ.get("CONFTUI_CLIPS", ROOT / ".build" / "clips")))
    ap.add_argument("--netbench-repeat", type=int, default=1)
    ap.add_argument("--steps", default="", help="comma-separated step names (default: every step)")
    ap.add_argument("--out", type=pathlib.Path, help="the page to write (default: docs/benchmarks.md for every "
                    "step, benchmarks.md under bench-results/ for a subset)")
    ap.add_argument("--dry-run", action="store_true", help="list the commands and write the page around them")
    ap.add_argument("--list", action="store_true", help="print the step names and what each measures")
    options = ap.parse_args()

    if options.list:
        for s in STEPS:
            print(f"{s.name:<16} {s.title}")
        return 0
    names = [n for n in options.steps.replace(" ", ",").split(",") if n]
    unknown = [n for n in names if n not in {s.name for s in STEPS}]
    if unknown:
        print(f"unknown bench step(s): {', '.join(unknown)}; steps: {', '.join(s.name for s in STEPS)}", file=sys.stderr)
        return 2
    chosen = [s for s in STEPS if not names or s.name in names]
    subset = len(chosen) < len(STEPS)
    if options.bin is None and not options.dry_run:
        print("--bin DIR (the release build's directory) is needed", file=sys.stderr)
        return 2
    options.bin = options.bin or pathlib.Path(".build/release")
    out = (options.out or (PARTIAL_OUT if subset or options.dry_run else FULL_OUT)).resolve()
    options.commit, options.machine = commit(), machine()
    options.methods_link = os.path.relpath(ROOT / "docs" / "bench-methods.md", out.parent)

    # The signaling load opens about a thousand sockets: lift the soft limit to the hard one (children inherit it).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    started = datetime.datetime.now(datetime.timezone.utc)
    results = [(step, run_step(step, options)) for step in chosen]
    finished = datetime.datetime.now(datetime.timezone.utc)
    text = page(results, options, started, finished)
    failed = [s.name for s, r in results if r[0] != 0]
    if failed:
        keep = PARTIAL_OUT if out == FULL_OUT else out
        write_atomically(keep, text)
        print(f"\nbench: {', '.join(failed)} failed; {out} left as it was, this run's page is {keep}", file=sys.stderr)
        return 1
    write_atomically(out, text)
    print(f"\nbench: wrote {out}" + (f" (steps: {', '.join(s.name for s in chosen)})" if subset else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
