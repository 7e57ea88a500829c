#!/usr/bin/env python3
"""The SCTP implementation decision, by measuring: CPU cost of conftui's Swift SCTP core against usrsctp.

Both move the same workloads between two associations in one process over a lossless in-memory link (no DTLS, no
sockets, a virtual clock for timers so waiting costs nothing): 200 MB as 3,200 messages of 64 KiB ("large") and
100,000 messages of 1 KiB ("small"), on one stream, ordered and reliable, packets of at most 1,140 bytes.
- Swift: `conftui-bench sctp-core` (Sources/Bench/SctpCoreBench.swift): two `DataChannels` back to back.
- usrsctp: Tests/Bench/usrsctp_pair.c, built here with `cc -O2 ... -lusrsctp` against Debian's libusrsctp-dev
  (0.9.5, the library libwebrtc used for data channels until dcSCTP): usrsctp_init_nothreads, AF_CONN one-to-one
  sockets, the output callback queues packets that the loop hands to the other end with usrsctp_conninput.
CPU seconds are the process's user + system time (getrusage) from the first message to the last one received; both
run single-threaded, so MB/s and messages/s are per core. The runs alternate (Swift, usrsctp, Swift, usrsctp ...)
ROUNDS times and the table gives each figure's median, so a busy spell of the machine falls on both.

Also printed, as facts for the decision: lines of the Swift SCTP core (wc -l of Sources/Engine/Transport/SCTP/*.swift)
and the size of the installed libusrsctp shared object.

Usage: sctp_core_bench.py CONFTUI_BIN [--rounds N]   (conftui-bench is taken from CONFTUI_BIN's directory)
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORKLOADS = (("large", 65_536, 3_200), ("small", 1_024, 100_000))
NAMES = {"large": "200 MB as 64 KiB messages", "small": "100,000 × 1 KiB messages"}


def results(output: str) -> list[dict]:
    return [json.loads(line[len("RESULT "):]) for line in output.splitlines() if line.startswith("RESULT ")]


def run(argv: list[str], env: dict | None = None) -> list[dict]:
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}{done.stdout[-500:]}")
    return results(done.stdout)


def library_path() -> pathlib.Path | None:
    """The installed shared object (the real file behind libusrsctp.so)."""
    for candidate in sorted(glob.glob("/usr/lib/*/libusrsctp.so*")) + sorted(glob.glob("/usr/lib/libusrsctp.so*")):
        path = pathlib.Path(candidate).resolve()
        if path.is_file():
            return path
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", nargs="?", default=os.environ.get("CONFTUI_BIN"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    bench = pathlib.Path(args.binary).resolve().parent / "conftui-bench"
    if not bench.exists():
        print(f"sctp-core: no {bench} (swift build -c release)")
        return 1
    library = library_path()
    if library is None or not os.path.exists("/usr/include/usrsctp.h"):
        print("sctp-core: usrsctp baseline skipped: Debian's libusrsctp-dev is not installed (make bench installs it)")
        return 1
    with tempfile.TemporaryDirectory(prefix="conftui-sctp-") as tmp:
        pair = pathlib.Path(tmp) / "usrsctp_pair"
        subprocess.run(["cc", "-O2", "-Wall", "-o", str(pair), str(HERE / "usrsctp_pair.c"), "-lusrsctp"], check=True)
        runs: dict[tuple[str, str], list[dict]] = {}
        for round_ in range(args.rounds):
            for name, size, count in WORKLOADS:
                env = dict(os.environ, CONFTUI_SCTP_WORKLOADS=name)
                for r in run([str(bench), "sctp-core"], env) + run([str(pair), name, str(size), str(count)]):
                    runs.setdefault((r["impl"], r["workload"]), []).append(r)
                    print(f"  round {round_ + 1} {r['impl']:<7} {name:<5} {r['bytes'] / 1e6 / r['cpu_s']:8.1f} MB/s "
                          f"{r['messages'] / r['cpu_s']:10.0f} msgs/s  CPU {r['cpu_s']:.3f} s  wall {r['wall_s']:.3f} s  "
                          f"packets {r['packets_ab']}/{r['packets_ba']} (largest {r['largest_packet']} B)  "
                          f"timer jumps {r['timer_jumps']}", flush=True)

    def median(impl: str, workload: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[(impl, workload)])

    print()
    print(f"Medians of {args.rounds} alternating runs; CPU = user + system seconds of the process (one thread), "
          "MB = 10^6 bytes of message payload.")
    print()
    print("| implementation | workload | MB/s per core | msgs/s per core | CPU s | packets A→B / B→A | Swift / usrsctp (MB/s) |")
    print("|---|---|---|---|---|---|---|")
    for name, _, _ in WORKLOADS:
        rates = {}
        for impl in ("swift", "usrsctp"):
            cpu = median(impl, name, "cpu_s")
            first = runs[(impl, name)][0]
            rates[impl] = first["bytes"] / 1e6 / cpu
            ratio = f"{rates['swift'] / rates['usrsctp']:.2f}" if impl == "usrsctp" else ""
            label = "Swift (DataChannels)" if impl == "swift" else "usrsctp 0.9.5 (Debian)"
            print(f"| {label} | {NAMES[name]} | {rates[impl]:.1f} | {first['messages'] / cpu:,.0f} | {cpu:.3f} | "
                  f"{int(median(impl, name, 'packets_ab')):,} / {int(median(impl, name, 'packets_ba')):,} | {ratio} |")

    swift_files = sorted((ROOT / "Sources" / "Engine" / "Transport" / "SCTP").glob("*.swift"))
    lines = sum(len(f.read_text().splitlines()) for f in swift_files)
    print()
    print("| code | size |")
    print("|---|---|")
    print(f"| Swift SCTP core + DCEP (Sources/Engine/Transport/SCTP/*.swift, {len(swift_files)} files) | {lines:,} lines |")
    print(f"| usrsctp shared object ({library}) | {library.stat().st_size:,} bytes |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
