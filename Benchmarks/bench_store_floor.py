#!/usr/bin/env python3
"""What one request of a seat costs PostgreSQL's processor, beside what any request costs it.
Called by scripts/bench-store-floor (which builds carrel). Not part of the test suite.

`--clients` connections (a room's seats) send `--rate` requests a second in all (`pgbench -R`)
to a private PostgreSQL pinned to core 0 (pgbench on core 1), measured over `--seconds` after
10 s of warming (the server processes have planned what they run). For each request: the
cluster's processor time per transaction that ended in the measured spell (every server
process's own time from /proc/PID/schedstat, and the children the postmaster reaped: at this
rate a server process's ticks in /proc/PID/stat stay at zero), counted from pgbench's log of
every transaction.

  SELECT 1                     the least a request costs (a process woken, a reply sent)
  a one-row insert, committed  the least a durable write costs
  a seat's answer              CALL carrel_publish_committed with one answer, as a seat sends it
  a seat's pulse               SELECT carrel_live(...), as a running seat sends it every 2 s
"""
import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import bench_shared as shared  # noqa: E402  (workspace, Postgres, run_seconds, reaped_seconds)

TOKEN = "t" * 40
ANSWER = '{"item": "largest", "response": {"text": {"_0": "a steady answer"}}, "answered": true, "elapsed": 12.5}'
WORKLOADS = [
    ("SELECT 1", "SELECT 1;"),
    ("a one-row insert, committed", "\\set id random(1, 900000000000)\nINSERT INTO floor_rows VALUES (:id, 'floor');"),
    ("a seat's answer", "\\set q random(1000, 900000000000)\n"
     f"CALL carrel_publish_committed(ARRAY['floor-' || :client_id], ARRAY['{TOKEN}'], ARRAY[''], ARRAY[:q]::int8[],"
     f" ARRAY['answer'], ARRAY[now()], ARRAY['{ANSWER}'], ARRAY['']);"),
    ("a seat's pulse", f"SELECT carrel_live('floor-' || :client_id, '{TOKEN}', '', 'mac', 12.5);"),
]


def pgbench():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pgbench"))
    return found[-1] if found else shutil.which("pgbench")


def cluster_seconds(pg):
    """The cluster's processor time so far: its live processes, and the children it reaped."""
    master = pg.postmaster()
    return sum(shared.run_seconds(p) or 0.0 for p in pg.pids()) + (shared.reaped_seconds(master) if master else 0.0)


def measure(pg, env, tool, folder, name, script, a):
    path = os.path.join(folder, "script.sql")
    with open(path, "w") as f:
        f.write(script + "\n")
    for old in glob.glob(os.path.join(folder, "tx.*")):
        os.remove(old)
    # Every transaction's end is logged (-l): those that ended in the measured spell are counted.
    run = subprocess.Popen(["taskset", "-c", "1", tool, "-n", "-M", a.mode, "-c", str(a.clients), "-j", "1", "-R", str(a.rate),
                            "-T", str(int(a.seconds) + 12), "-f", path, "-l", f"--log-prefix={folder}/tx", pg.url],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    time.sleep(10)
    c0, t0 = cluster_seconds(pg), time.time()
    time.sleep(a.seconds)
    c1, t1 = cluster_seconds(pg), time.time()
    out, _ = run.communicate()
    if run.returncode != 0:
        sys.exit(f"bench-store-floor: pgbench failed for {name}:\n{out[-800:]}")
    n = 0
    for log in glob.glob(os.path.join(folder, "tx.*")):
        with open(log) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 6 and t0 <= int(fields[4]) + int(fields[5]) / 1e6 <= t1:
                    n += 1
    if n == 0:
        sys.exit(f"bench-store-floor: no {name} ended in the measured spell")
    shared.say(f"  {name:<30} {(c1 - c0) * 1000 / n:6.3f} ms of PostgreSQL processor time each ({n} in {t1 - t0:.0f} s)")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--rate", type=float, default=100, help="requests a second, all connections together")
    p.add_argument("--seconds", type=float, default=30, help="the measured spell, after 10 s of warming")
    p.add_argument("--mode", default=os.environ.get("FLOOR_MODE", "extended"), choices=["extended", "prepared", "simple"],
                   help="pgbench's protocol: extended (a statement's text parsed at each request, as Carrel's seats send it)")
    a = p.parse_args()

    def stop(signum, _frame):
        raise SystemExit(128 + signum)  # the cluster and the folder are still cleaned up
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    tool = pgbench()
    if not tool or not shutil.which("taskset"):
        sys.exit("bench-store-floor: pgbench or taskset is missing (scripts/install-deps installs PostgreSQL)")
    folder, pg, env = shared.workspace("carrel-store-floor-", 0)
    try:
        pg.start()
        subprocess.run([shared.CARREL, "store", "init", "--shared", pg.url], env=env, check=True, stdout=subprocess.DEVNULL)
        for pid in pg.pids():
            os.sched_setaffinity(pid, {0})
        # The room's sessions, made as the owner (a seat's hello would meet the room's quota of
        # sessions nobody started), and a plain table for the floor's insert.
        pg.psql(f"""CREATE TABLE floor_rows (id bigint, note text);
            INSERT INTO carrel_sessions (session, room, seat, assessment_id, assessment_title, fingerprint, status, started_at,
                                         token_hash, hello_hash, lock_key)
              SELECT 'floor-' || i, 'floor', 'S' || i, 'a', 'A', 'f', 'active', now(), carrel_token_hash('{TOKEN}'),
                     carrel_token_hash('{TOKEN}'), i FROM generate_series(0, {a.clients}) AS i;""")
        version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.strip()
        shared.say(f"{a.clients} connections, {a.rate:g} requests a second in all, PostgreSQL on core 0 ({version})")
        for name, script in WORKLOADS:
            measure(pg, env, tool, folder, name, script, a)
    finally:
        pg.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
