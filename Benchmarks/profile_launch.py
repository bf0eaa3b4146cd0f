#!/usr/bin/env python3
"""Counts the instructions `carrel take` runs from launch to its first frame (the sample test,
80x24), with callgrind: the real binary in a pseudo-terminal, a dump asked for as soon as the
start screen is there. Instructions, unlike milliseconds, do not move with the machine's load.

    python3 Benchmarks/profile_launch.py [.build/release/carrel]
    callgrind_annotate --inclusive=yes /tmp/carrel-launch.callgrind.1 | head -60

The static binary's debug information is more than valgrind reads, so a copy without it is
profiled (its symbols stay)."""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "carrel")
work = tempfile.mkdtemp(prefix="carrel-profile-")
copy = os.path.join(work, "carrel")
subprocess.run(["objcopy", "--strip-debug", binary, copy], check=True)
out = "/tmp/carrel-launch.callgrind"
env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
for name in ("TMUX", "STY", "NO_COLOR"):
    env.pop(name, None)
pane = bench.Pane(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", copy, "take",
                   os.path.join(ROOT, "Assessments", "geography.yaml"), "--state-dir", os.path.join(work, "state"),
                   "--candidate", "Bench"], env=env)
pane.read_until("F1 help", timeout=120)
subprocess.run(["callgrind_control", "-d"], capture_output=True)
time.sleep(2)
pane.close()
print(f"dump: {out}.1 (the first frame); total:")
subprocess.run(f"callgrind_annotate {out}.1 | grep 'PROGRAM TOTALS'", shell=True)
