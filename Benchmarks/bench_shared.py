#!/usr/bin/env python3
"""Figures of the lab's shared store (seats publishing to PostgreSQL), on a private PostgreSQL
on loopback. Called by scripts/bench-shared (which builds the release binaries and detaches
from any terminal). Not part of the test suite. Three parts, in one run:

- load: many seats (the headless session driver, one process each, the real runtime,
  journal and publisher) each commit one answer a second; the delay from each answer
  record's `at` (the seat's clock, at commit) to its `received_at` in PostgreSQL, p50/p99/max;
  the console's refresh for every seat: `carrel proctor --shared URL --json` end to end
  (median of several runs) and the console's query alone (the SQL of SharedReader.seats,
  read from Sources/SharedStore/Reader/SharedReader.swift, timed by psql's \\timing), under the load
  and again once the seats have left. A live console (`carrel proctor` in a pseudo-terminal)
  runs during the load, as in a real room.
- outage: PostgreSQL stopped while the seats keep answering, then started again; the time
  from the restart until every seat's outbox has reached the store (every record the seat
  had written when the store came back), per seat and for the last one; then each seat's
  journal compared with the store: every answer_history row matches one answer record
  (item and response), no record twice (superseded time saves are not sent), events and flags
  the same.
- typing: the real `carrel take --shared` in a pseudo-terminal (Benchmarks/bench.py's
  Pane), typing latency p50/p99 with PostgreSQL up, stopped and paused (SIGSTOP), in one
  session.

Every process started here (seats, consoles, psql, PostgreSQL) is ended at the end, also
on failure or on SIGTERM/SIGINT, and the temporary folder is removed (unless --keep).
"""
import argparse
import collections
import json
import os
import selectors
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ left beside bench.py
import bench  # noqa: E402  (Pane, Bench, percentile: the pseudo-terminal harness of scripts/bench)

ROOT = os.path.dirname(HERE)
CARREL = os.environ.get("CARREL_BIN") or os.path.join(ROOT, ".build-bench", "release", "carrel")
DRIVER = os.environ.get("CARREL_DRIVER_BIN") or os.path.join(ROOT, ".build-bench", "release", "carrel-session-driver")
PRIVATE_POSTGRES = os.path.join(ROOT, "scripts", "private-postgres")
ASSESSMENT = os.path.join(ROOT, "Assessments", "geography.yaml")
READER_SOURCE = os.path.join(ROOT, "Sources", "SharedStore", "Reader", "SharedReader.swift")
# Items of geography.yaml other than the text item the seats answer: flagged in turn.
FLAG_ITEMS = ["canada", "australia", "ottawa-true", "capitals", "island-countries", "continents", "sizes"]
ROOM = "bench"
CLOCK_TICK = os.sysconf("SC_CLK_TCK")


def say(text=""):
    print(text, flush=True)


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


def pct(values, p):
    return bench.percentile(values, p) if values else float("nan")


def spread(values):
    """p50 / p99 / max of seconds, as text."""
    if not values:
        return "no values"
    return f"p50 {ms(pct(values, 50))}, p99 {ms(pct(values, 99))}, max {ms(max(values))} ({len(values)} values)"


def verdict(ok):
    return "goal met" if ok else "GOAL MISSED"


def wait_for(what, timeout, poll=0.05):
    """`what()` once it is truthy, asked every `poll` seconds for up to `timeout`; else None."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = what()
        if value:
            return value
        time.sleep(poll)
    return None


def workspace(prefix, port):
    """A benchmark's temporary folder (with `seats/`), its private PostgreSQL, and the
    environment its programs run in: nothing of the caller's desktop or multiplexer (the seats
    clear the pasteboards they find), the cluster's password file."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    # As root the cluster runs as `postgres`, which must reach its folder inside this one.
    os.chmod(tmp, 0o711)
    os.makedirs(os.path.join(tmp, "seats"))
    pg = Postgres(os.path.join(tmp, "pg"), port or free_port())
    env = dict(os.environ, LANG="C.UTF-8", TERM="xterm-256color")
    for name in ("TMUX", "STY", "DISPLAY", "WAYLAND_DISPLAY", "LD_PRELOAD", "NO_COLOR", "CARREL_SHARED", "CARREL_ROOM"):
        env.pop(name, None)
    env["PGPASSFILE"] = pg.env["PGPASSFILE"]
    return tmp, pg, env


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seats_sql(room_literal="NULL"):
    """The console's query, as SharedReader.seats sends it, its room parameter inlined (a
    custom plan, as PostgreSQL makes for the unnamed statement the console sends)."""
    text = open(READER_SOURCE, encoding="utf-8").read()
    start = text.index("func seats(")
    first = text.index('"""', start) + 3
    last = text.index('"""', first)
    sql = textwrap.dedent(text[first:last].strip("\n"))
    sql = sql.replace("\\(room)", room_literal).replace("\\(Self.seatLimit)", "2000")
    # Fragments the query takes from constants of the same file (`\(unescaped: NAME)`).
    for name, constant in (("Self.heldLocks", "static let heldLocks"), ("RawSeat.columns", "static let columns")):
        marker = f"\\(unescaped: {name})"
        if marker in sql:
            at = text.index('"""', text.index(constant)) + 3
            fragment = textwrap.dedent(text[at:text.index('"""', at)].strip("\n")).strip()
            sql = sql.replace(marker, fragment)
    if "\\(" in sql:
        raise SystemExit(f"bench-shared: the seats query in {READER_SOURCE} has an interpolation this script does not know")
    return sql


# MARK: machine figures

def machine_cpu():
    """(busy, total) clock ticks of the whole machine."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / CLOCK_TICK


def run_seconds(pid):
    """A single-threaded process's processor time in seconds, to the nanosecond (the
    scheduler's own sum, /proc/PID/schedstat); None when it is gone."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def reaped_seconds(pid):
    """The processor time of the children a process has waited for (cutime + cstime)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[13]) + int(fields[14])) / CLOCK_TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def rss_mb(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


class Usage:
    """CPU used by the machine, the seats and PostgreSQL over a spell."""

    def __init__(self, run):
        self.run = run
        self.start = time.monotonic()
        self.machine = machine_cpu()
        self.seats = cpu_seconds(run.seat_pids())
        self.pg = cpu_seconds(run.pg.pids())

    def text(self):
        elapsed = time.monotonic() - self.start
        busy, total = machine_cpu()
        machine = (busy - self.machine[0]) / max(1, total - self.machine[1]) * 100
        seats = (cpu_seconds(self.run.seat_pids()) - self.seats) / elapsed / (os.cpu_count() or 1) * 100
        pg = (cpu_seconds(self.run.pg.pids()) - self.pg) / elapsed / (os.cpu_count() or 1) * 100
        return (f"machine {machine:.0f} % busy (of {os.cpu_count()} cores): seats {seats:.0f} %, PostgreSQL {pg:.0f} %"
                f" (PostgreSQL backends that left are not counted); load average {os.getloadavg()[0]:.1f}")


# MARK: PostgreSQL

class Postgres:
    """A private cluster (scripts/private-postgres) in its own folder on a loopback port."""

    def __init__(self, folder, port):
        self.folder = folder
        self.port = port
        self.url = None
        self.paused = False
        self.env = dict(os.environ, PGPASSFILE=os.path.join(folder, "pgpass"), PGCONNECT_TIMEOUT="5")

    def control(self, *words):
        r = subprocess.run([PRIVATE_POSTGRES, *words], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"private-postgres {' '.join(words)}: {r.stderr.strip() or r.stdout.strip()}")
        return r.stdout.strip()

    def start(self):
        self.url = self.control("start", self.folder, str(self.port)).splitlines()[-1]
        return self.url

    def stop(self):
        self.control("stop", self.folder)

    def pause(self):
        self.paused = True
        self.control("pause", self.folder)

    def resume(self):
        self.control("resume", self.folder)
        self.paused = False

    def postmaster(self):
        try:
            with open(os.path.join(self.folder, "data", "postmaster.pid")) as f:
                return int(f.readline())
        except (OSError, ValueError):
            return None

    def pids(self):
        master = self.postmaster()
        if master is None:
            return []
        out = [master]
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        if int(f.read().rsplit(")", 1)[1].split()[1]) == master:
                            out.append(int(entry))
                except (OSError, IndexError, ValueError):
                    pass
        return out

    def psql(self, sql, timeout=30):
        r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", self.url, "-c", sql],
                           capture_output=True, text=True, env=self.env, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"psql: {r.stderr.strip()}")
        return r.stdout

    def json(self, sql, timeout=60):
        return json.loads(self.psql(sql, timeout) or "null")

    def cleanup(self):
        if self.paused:
            try:
                self.resume()
            except Exception as e:  # noqa: BLE001  (cleanup goes on)
                say(f"cleanup: resume: {e}")
        try:
            self.stop()
        except Exception as e:  # noqa: BLE001
            say(f"cleanup: stop: {e}")
            master = self.postmaster()
            if master:
                for pid in self.pids():
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass


# MARK: seats

class Seat:
    """One headless session driver: the real runtime, journal and publisher of one seat."""

    def __init__(self, run, index):
        self.run = run
        self.index = index
        self.name = f"seat-{index:03d}"
        self.state = os.path.join(run.tmp, "seats", self.name)
        self.session = None
        self.sent = collections.deque()   # monotonic times of answers not yet acknowledged
        self.acks = []                    # (sent, seconds to ack)
        self.unsaved = 0
        self.answers = 0
        self.flags = 0
        self.pastes = 0
        self.notices = []
        self.lines = []                   # other lines (store, finished, …), newest last
        self.finished = None
        self.left_waiting = False
        self.dead = None
        self.partial = b""
        with open(self.state + ".stderr", "wb") as errors:
            self.proc = subprocess.Popen(
                [DRIVER, "--state-dir", self.state, "--candidate", f"Candidate {index:03d}", "--shared", run.pg.url,
                 "--room", ROOM, "--seat", self.name, "begin", ASSESSMENT],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, env=run.env, cwd=ROOT)
        os.set_blocking(self.proc.stdout.fileno(), False)

    def send(self, line):
        if self.dead:
            return False
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError) as e:
            self.dead = f"input refused ({e}); exit status {self.proc.poll()}"
            return False

    def answer(self):
        self.answers += 1
        k = self.answers
        response = json.dumps({"text": {"_0": f"{self.name} answer {k}"}}, separators=(",", ":"))
        self.sent.append(time.monotonic())
        if not self.send(f"answer largest {response}"):
            return
        # Now and then a flag toggled and a paste refused (an event), at staggered moments.
        if (k + self.index) % 10 == 0:
            self.flags += 1
            self.send(f"flag {FLAG_ITEMS[(k // 10 + self.index) % len(FLAG_ITEMS)]}")
        if (k + self.index) % 20 == 5:
            self.pastes += 1
            self.send("paste 3")

    def readable(self):
        """Reads what the driver printed; False at end of output."""
        try:
            chunk = os.read(self.proc.stdout.fileno(), 65536)
        except BlockingIOError:
            return True
        except OSError:
            chunk = b""
        if not chunk:
            return False
        now = time.monotonic()
        data = self.partial + chunk
        *lines, self.partial = data.split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if line.startswith("ack "):
                if self.sent:
                    sent = self.sent.popleft()
                    self.acks.append((sent, now - sent))
            elif line.startswith("unsaved "):
                self.unsaved += 1
                if self.sent:
                    self.sent.popleft()
            elif line.startswith("began "):
                self.session = line.split()[1]
            elif line.startswith("ok "):
                pass
            elif line.startswith("notice "):
                text = line[len("notice "):]
                if text.startswith("records left waiting"):
                    self.left_waiting = True
                if text not in ("Question flagged", "Flag removed", "Paste is disabled during this assessment"):
                    self.notices.append(text)
            elif line.startswith("finished "):
                self.finished = line
            else:
                self.lines.append(line)
        return True

    def kill(self):
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass


class Reader(threading.Thread):
    """Reads every seat's output (and drains the live console's terminal) as it comes."""

    def __init__(self):
        super().__init__(daemon=True)
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.stopping = False
        self.console_bytes = 0

    def add_seat(self, seat):
        with self.lock:
            self.selector.register(seat.proc.stdout.fileno(), selectors.EVENT_READ, seat)

    def add_pane(self, pane):
        with self.lock:
            self.selector.register(pane.fd, selectors.EVENT_READ, pane)

    def remove(self, fd):
        with self.lock:
            try:
                self.selector.unregister(fd)
            except (KeyError, ValueError):
                pass

    def run(self):
        while not self.stopping:
            with self.lock:
                empty = not self.selector.get_map()
            if empty:
                time.sleep(0.05)
                continue
            for key, _ in self.selector.select(0.1):
                owner = key.data
                if isinstance(owner, Seat):
                    if not owner.readable():
                        self.remove(key.fd)
                else:
                    try:
                        data = os.read(key.fd, 65536)
                    except OSError:
                        data = b""
                    if not data:
                        self.remove(key.fd)
                    self.console_bytes += len(data)


# MARK: the run

class Run:
    def __init__(self, args):
        self.args = args
        self.tmp, self.pg, self.env = workspace("carrel-bench-shared-", args.port)
        self.seats = []
        self.reader = Reader()
        self.console = None
        self.panes = []
        self.lag = 0.0
        self.problems = []

    def seat_pids(self):
        return [s.proc.pid for s in self.seats if s.proc.poll() is None]

    def wall(self):
        return time.time()

    # -- load --------------------------------------------------------------------------

    def answering(self, until, label):
        """Each live seat answers once per period, seats spread over the period, until
        `until()` is true (checked at each period)."""
        period = 1.0 / self.args.rate
        n = len(self.seats)
        start = time.monotonic()
        j = 0
        while not until():
            base = start + j * period
            for i, seat in enumerate(self.seats):
                wait = base + i * period / n - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                elif -wait > self.lag:
                    self.lag = -wait
                if seat.proc.poll() is not None and not seat.dead:
                    seat.dead = f"exited with status {seat.proc.returncode} during {label}"
                seat.answer()
            j += 1
        return time.monotonic() - start

    def start_seats(self):
        a = self.args
        say(f"starting {a.seats} seats (carrel-session-driver, room {ROOM!r}) …")
        started = time.monotonic()
        for i in range(a.seats):
            seat = Seat(self, i + 1)
            self.seats.append(seat)
            self.reader.add_seat(seat)
        deadline = started + a.start_timeout
        while time.monotonic() < deadline and any(s.session is None and s.proc.poll() is None for s in self.seats):
            time.sleep(0.05)
        began = time.monotonic() - started
        missing = [s for s in self.seats if s.session is None]
        for s in missing:
            s.dead = f"never began (exit status {s.proc.poll()}; {self.stderr_tail(s)})"
        if missing:
            self.problems.append(f"{len(missing)} seats never began, e.g. {missing[0].name}: {missing[0].dead}")
            say(f"  {len(missing)} seats never began; first: {missing[0].name}: {missing[0].dead}")
        # Until every session that began is in the store.
        want = {s.session for s in self.seats if s.session}
        while time.monotonic() < deadline:
            try:
                rows = self.pg.json("SELECT coalesce(json_agg(session), '[]') FROM carrel_sessions")
            except RuntimeError:
                rows = []
            if want <= set(rows):
                break
            time.sleep(0.2)
        listed = time.monotonic() - started
        say(f"  all began in {began:.1f} s, all in the store in {listed:.1f} s; "
            f"seats' memory {rss_mb(self.seat_pids()):.0f} MB RSS in all; load average {os.getloadavg()[0]:.1f}")

    def stderr_tail(self, seat):
        try:
            with open(seat.state + ".stderr", "rb") as f:
                return f.read()[-300:].decode("utf-8", "replace").strip() or "no output"
        except OSError:
            return "no output"

    def start_live_console(self):
        if self.args.no_live_console:
            return
        self.console = bench.Pane([CARREL, "proctor", "--shared", self.pg.url, "--room", ROOM], cols=120, rows=40,
                                  env=self.env)
        self.panes.append(self.console)
        self.reader.add_pane(self.console)

    # -- console figures -----------------------------------------------------------------

    def console_figures(self, label):
        """`carrel proctor --json` end to end (median of runs) and the console's query alone.
        Beside it, in the same rounds: the same with `sslmode=disable` (no TLS attempt before
        the plain connection), for a room with no seats (all but the seats' rows) and
        `carrel --version` (the cost of starting the binary)."""
        a = self.args
        plain = self.pg.url + ("&" if "?" in self.pg.url else "?") + "sslmode=disable"
        kinds = {"proctor": [CARREL, "proctor", "--shared", self.pg.url, "--json"],
                 "plain": [CARREL, "proctor", "--shared", plain, "--json"],
                 "empty": [CARREL, "proctor", "--shared", self.pg.url, "--room", "no-such-room", "--json"],
                 "version": [CARREL, "--version"]}
        runs = {k: [] for k in kinds}
        counts, failures = [], []
        for _ in range(a.proctor_runs):
            for kind, argv in kinds.items():
                t = time.monotonic()
                r = subprocess.run(argv, capture_output=True, text=True, env=self.env)
                runs[kind].append(time.monotonic() - t)
                if r.returncode != 0:
                    failures.append(f"{' '.join(argv[1:2])}: {r.stderr.strip()[:200]}")
                elif kind == "proctor":
                    counts.append(len(json.loads(r.stdout)["seats"]))
                time.sleep(0.1)
        sql = seats_sql()
        script = "\\o /dev/null\n\\timing on\n" + "".join(sql + ";\n" for _ in range(a.query_runs))
        r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", self.pg.url], input=script,
                           capture_output=True, text=True, env=self.pg.env)
        times = [float(line.split()[1]) / 1000 for line in r.stdout.splitlines() if line.startswith("Time: ")]
        if r.returncode != 0:
            failures.append("psql: " + r.stderr.strip()[:200])
        server = json.loads(self.pg.psql("EXPLAIN (ANALYZE, FORMAT JSON) " + sql))[0]
        shown = counts[0] if counts else "?"
        med = {k: statistics.median(v) for k, v in runs.items()}
        say(f"  console, {label}: `carrel proctor --json` ({shown} seats) end to end median {ms(med['proctor'])} "
            f"(min {ms(min(runs['proctor']))}, max {ms(max(runs['proctor']))}, {len(runs['proctor'])} runs) — "
            f"{verdict(med['proctor'] < 0.1)} (< 100 ms)")
        say(f"    beside it, medians in the same rounds: with sslmode=disable {ms(med['plain'])}; a room with no seats "
            f"(start, connect, schema check, an empty answer) {ms(med['empty'])}; `carrel --version` (starting the binary) {ms(med['version'])}")
        if times:
            say(f"  console's query alone (SharedReader.seats, psql \\timing over loopback): median {ms(statistics.median(times))}, "
                f"p99 {ms(pct(times, 99))}, max {ms(max(times))} ({len(times)} runs) — {verdict(statistics.median(times) < 0.1)} (< 100 ms); "
                f"server side (EXPLAIN ANALYZE): planning {server['Planning Time']:.2f} ms, execution {server['Execution Time']:.2f} ms")
        for f in failures[:3]:
            say(f"  console failure: {f}")
            self.problems.append(f"console {label}: {f}")
        return med["proctor"], (statistics.median(times) if times else None)

    # -- delays ----------------------------------------------------------------------------

    def delays(self, since, until=None, kind="answer"):
        """Seconds from `at` to `received_at` of the records of `kind` whose `at` is in the window."""
        window = f"at >= to_timestamp({since})" + (f" AND at < to_timestamp({until})" if until else "")
        values = self.pg.json(f"""
            SELECT coalesce(json_agg(extract(epoch FROM received_at - at)::float8), '[]')
            FROM carrel_records WHERE kind = '{kind}' AND {window}""")
        return values

    def acks_between(self, start, end):
        return [d for s in self.seats for (t, d) in s.acks if start <= t < end]

    # -- parts -----------------------------------------------------------------------------

    def load_part(self):
        a = self.args
        say(f"\n(a) load: {len(self.seats)} seats, {a.rate:g} answer/s each, {a.seconds:g} s")
        console = {}

        def measure():
            time.sleep(a.seconds * 0.4)
            try:
                console["load"] = self.console_figures(f"under load ({len(self.seats)} seats answering)")
            except Exception as e:  # noqa: BLE001  (reported, the run goes on)
                console["error"] = e
        thread = threading.Thread(target=measure, daemon=True)
        usage = Usage(self)
        live = cpu_seconds([self.console.pid]) if self.console else None
        self.load_wall = self.wall()
        self.load_mono = time.monotonic()
        thread.start()
        end = time.monotonic() + a.seconds
        took = self.answering(lambda: time.monotonic() >= end and not thread.is_alive(), "the load")
        self.load_end_wall = self.wall()
        self.load_end_mono = time.monotonic()
        if "error" in console:
            say(f"  console figures failed: {console['error']}")
            self.problems.append(f"console figures: {console['error']}")
        self.settle()
        d = self.delays(self.load_wall, self.load_end_wall)
        acks = self.acks_between(self.load_mono, self.load_end_mono)
        say(f"  load ran {took:.1f} s; the script sent answers at most {ms(self.lag)} late; {usage.text()}")
        if live is not None:
            used = (cpu_seconds([self.console.pid]) - live) / took * 100
            say(f"  the live console (`carrel proctor --room {ROOM}`, refreshing on every change, at most every 0.1 s) "
                f"used {used:.1f} % of a core meanwhile")
        say(f"  answer `at` -> `received_at`: {spread(d)} — {verdict(bool(d) and pct(d, 99) <= 1.0)} (p99 <= 1 s)")
        say(f"  answer -> ack at the seat (commit, pipe included): {spread([x for x in acks])}")
        self.results["delay_p99"] = pct(d, 99) if d else None
        self.results["console"] = console.get("load")

    def outage_part(self):
        a = self.args
        say(f"\n(b) outage: PostgreSQL stopped for {a.outage:g} s while the seats answer, then started again")
        self.lag = 0.0
        t = time.monotonic()
        self.pg.stop()
        stopped = time.monotonic()
        stop_wall = self.wall()
        say(f"  stopped in {stopped - t:.1f} s")
        self.answering(lambda: time.monotonic() - stopped >= a.outage, "the outage")
        outage_end = time.monotonic()
        # What each seat had written when the store came back: its outbox's newest sequence number.
        target = {}
        waiting = 0
        for s in self.seats:
            if s.session:
                target[s.session], rows = self.outbox_now(s)
                waiting += rows > 0
        # The restart is the moment PostgreSQL is started: its own start-up time counts.
        restarted = time.monotonic()
        restart_wall = self.wall()
        self.pg.start()
        say(f"  seats with records waiting in their outbox at the restart: {waiting} of {len(target)}; "
            f"PostgreSQL took {time.monotonic() - restarted:.1f} s to start (pg_ctl start -w)")
        acks = self.acks_between(stopped, outage_end)
        say(f"  answer -> ack at the seat while the store was down: {spread(acks)}")
        # Polled only to know when to stop waiting; each seat's figure is the store's own
        # `received_at` of the last record the seat had written before the restart.
        drained = set()
        polls = {"ok": 0, "failed": 0, "error": None, "first": None}
        done = threading.Event()

        def poll():
            deadline = restarted + a.drain_timeout
            while time.monotonic() < deadline:
                try:
                    rows = self.pg.json("SELECT coalesce(json_object_agg(session, m), '{}') FROM "
                                        "(SELECT session, max(seq) AS m FROM carrel_records GROUP BY session) x", timeout=10)
                    polls["ok"] += 1
                    if polls["first"] is None:
                        polls["first"] = time.monotonic() - restarted
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    polls["failed"] += 1
                    polls["error"] = polls["error"] or str(e)[:200]
                    rows = {}
                for session, seq in rows.items():
                    if session in target and seq >= target[session]:
                        drained.add(session)
                if len(drained) == len(target):
                    break
                time.sleep(0.1)
            done.set()
        usage = Usage(self)
        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        self.answering(done.is_set, "the recovery")
        drained_wall = self.wall()
        waited = time.monotonic() - restarted
        say(f"  {usage.text()}")
        say(f"  (the script's polls of the store: {polls['ok']} answered, the first {polls['first'] or 0:.1f} s after the restart; "
            f"{polls['failed']} failed{': ' + polls['error'] if polls['error'] else ''})")
        targets = json.dumps({k: v for k, v in target.items()})
        arrivals = self.pg.json(f"""
            SELECT coalesce(json_object_agg(r.session, extract(epoch FROM r.received_at)::float8), '{{}}')
            FROM carrel_records r JOIN json_each_text('{targets}'::json) t ON r.session = t.key AND r.seq = t.value::bigint""")
        first = self.pg.json(f"SELECT extract(epoch FROM min(received_at))::float8 FROM carrel_records WHERE received_at > to_timestamp({restart_wall})")
        per_seat = sorted(v - restart_wall for v in arrivals.values())
        if len(drained) == len(target) and len(per_seat) == len(target):
            last = per_seat[-1] if per_seat else 0.0
            say(f"  first record in the store {first - restart_wall:.1f} s after the restart; every seat's outbox drained "
                f"{last:.1f} s after it (per seat p50 {pct(per_seat, 50):.1f} s, p99 {pct(per_seat, 99):.1f} s; "
                f"from the store's received_at of each seat's last record written before the restart) — {verdict(last <= 10)} (<= 10 s)")
            self.results["drain"] = last
        else:
            stuck = [s for s in self.seats if s.session in target and s.session not in drained]
            say(f"  NOT DRAINED: {len(stuck)} of {len(target)} seats still short of their records {waited:.0f} s after the restart")
            self.problems.append(f"{len(stuck)} seats did not drain within {a.drain_timeout:g} s of the restart")
            for s in stuck[:5]:
                s.send("store")
            time.sleep(1)
            for s in stuck[:5]:
                have = self.pg.psql(f"SELECT coalesce(max(seq), 0) FROM carrel_records WHERE session = '{s.session}'").strip()
                say(f"    {s.name} ({s.session}): store has up to seq {have}, seat had {target[s.session]}; "
                    f"seat says: {s.lines[-1] if s.lines else '-'}; notices: {s.notices[-2:]}")
            self.results["drain"] = None
        self.answering(lambda: self.wall() - drained_wall >= a.after, "after the recovery")
        self.settle()
        during = self.delays(stop_wall, restart_wall)
        after = self.delays(drained_wall + 1)
        say(f"  answers written during the outage, `at` -> `received_at`: {spread(during)}")
        say(f"  answers after every seat drained ({a.after:g} s), `at` -> `received_at`: {spread(after)}")

    def settle(self, limit=30):
        """Waits (answering paused) until no seat has a record waiting, so that the delays
        read next count every answer of the spell, however late."""
        start = time.monotonic()
        while time.monotonic() - start < limit:
            if all(self.outbox_now(s)[1] == 0 for s in self.seats if s.session and s.proc.poll() is None):
                return
            time.sleep(0.2)
        say(f"  (records still waiting in some outbox {limit} s after the last answer: the figures below leave them out)")
        self.problems.append(f"records still waiting {limit} s after a spell of answers")

    def outbox_now(self, seat):
        """The newest sequence number the seat has written, and how many records wait."""
        with self.journal(seat) as db:
            return db.execute("SELECT coalesce(max(seq), 0), count(*) FILTER (WHERE kind <> '.published') FROM outbox").fetchone()

    def journal(self, seat):
        path = os.path.join(seat.state, "journal.sqlite")
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        return _Closing(db)

    def finish_seats(self):
        say("\nsubmitting on every seat …")
        t = time.monotonic()
        for s in self.seats:
            s.send("submit")
        deadline = t + 60
        for s in self.seats:
            try:
                s.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        running = [s for s in self.seats if s.proc.poll() is None]
        time.sleep(0.3)  # the last lines read
        statuses = collections.Counter(s.proc.returncode for s in self.seats if s.proc.poll() is not None)
        waiting = sum(1 for s in self.seats if s.left_waiting)
        say(f"  all seats left in {time.monotonic() - t:.1f} s; exit statuses {dict(statuses)}; "
            f"{waiting} said records were left waiting; {len(running)} still running after 60 s (killed)")
        if running or waiting or set(statuses) - {0}:
            self.problems.append(f"at submit: exit statuses {dict(statuses)}, {waiting} left records waiting, {len(running)} hung")
        for s in running:
            s.kill()
        odd = [(s.name, n) for s in self.seats for n in s.notices]
        if odd:
            say(f"  notices from the seats (first 5 of {len(odd)}): {odd[:5]}")

    def compare(self):
        """Every seat's journal against the store: 0 lost, 0 duplicated."""
        say("\ncomparing each seat's journal with the store …")
        store = self.pg.json("""
            SELECT coalesce(json_agg(json_build_array(session, seq, kind, body)), '[]') FROM carrel_records
            WHERE kind IN ('answer', 'event', 'flag')""", timeout=120)
        per = collections.defaultdict(lambda: {"answer": collections.Counter(), "event": collections.Counter(), "flag": 0})
        for session, _seq, kind, body in store:
            if kind == "answer":
                per[session]["answer"][(body["item"], json.dumps(body["response"], sort_keys=True))] += 1
            elif kind == "event":
                per[session]["event"][(body.get("kind"), body.get("detail"))] += 1
            else:
                per[session]["flag"] += 1
        counts = self.record_counts()
        same_key = int(self.pg.psql("SELECT count(*) - count(DISTINCT (session, seq)) FROM carrel_records").strip())
        flags = collections.defaultdict(set)
        for session, item in self.pg.json("SELECT coalesce(json_agg(json_build_array(session, item)), '[]') FROM carrel_flags"):
            flags[session].add(item)
        sessions = {r[0]: r[1:] for r in self.pg.json("""
            SELECT coalesce(json_agg(json_build_array(session, status, end_reason, answered, flagged)), '[]') FROM carrel_sessions""")}
        results = set(self.pg.json("SELECT coalesce(json_agg(session), '[]') FROM carrel_results"))
        totals = collections.Counter()
        bad = []
        for s in self.seats:
            if not s.session:
                continue
            with self.journal(s) as db:
                history = collections.Counter(
                    (item, json.dumps(json.loads(resp) if resp is not None else None, sort_keys=True))
                    for item, resp in db.execute("SELECT item_id, response FROM answer_history WHERE session_id = ?", (s.session,)))
                events = collections.Counter(db.execute("SELECT kind, detail FROM event WHERE session_id = ?", (s.session,)).fetchall())
                jflags = {r[0] for r in db.execute("SELECT item_id FROM flag WHERE session_id = ?", (s.session,))}
                answered = db.execute("SELECT count(*) FROM answer WHERE session_id = ? AND response IS NOT NULL", (s.session,)).fetchone()[0]
                produced = db.execute("SELECT coalesce(max(seq), 0) FROM outbox").fetchone()[0]
                left = db.execute("SELECT count(*) FROM outbox WHERE kind <> '.published'").fetchone()[0]
            got = per[s.session]
            lost_answers = sum((history - got["answer"]).values())
            extra_answers = sum((got["answer"] - history).values())
            twice = sum(n - 1 for n in got["answer"].values() if n > 1)
            lost_events = sum((events - got["event"]).values())
            extra_events = sum((got["event"] - events).values())
            n, distinct, top = counts.get(s.session, (0, 0, 0))
            row = sessions.get(s.session)
            totals["answers in journals"] += sum(history.values())
            totals["answer records in the store"] += sum(got["answer"].values())
            totals["events in journals"] += sum(events.values())
            totals["event records in the store"] += sum(got["event"].values())
            totals["flag toggles sent"] += s.flags
            totals["flag records in the store"] += got["flag"]
            totals["records written by the seats"] += produced
            totals["records in the store"] += n
            totals["lost answers"] += lost_answers
            totals["answers in the store but not in a journal"] += extra_answers
            totals["answers stored twice"] += twice
            totals["lost events"] += lost_events
            totals["events in the store but not in a journal"] += extra_events
            totals["records still waiting in an outbox"] += left
            problems = []
            if lost_answers or extra_answers or twice:
                problems.append(f"answers: {lost_answers} lost, {extra_answers} extra, {twice} twice")
            if lost_events or extra_events:
                problems.append(f"events: {lost_events} lost, {extra_events} extra")
            if jflags != flags.get(s.session, set()):
                problems.append(f"flags: journal {sorted(jflags)} store {sorted(flags.get(s.session, set()))}")
            if got["flag"] != s.flags:
                problems.append(f"flag records: {s.flags} toggles sent, {got['flag']} in the store")
            # Time saves replaced by a later one in the same batch are not sent (the journal
            # keeps only the latest), so numbers may be missing; none may be there twice, and
            # the newest must be there.
            if not (n == distinct and top == produced):
                problems.append(f"records: seat wrote 1..{produced}, store has {n} ({distinct} distinct seq, up to {top})")
            if left:
                problems.append(f"{left} records still in the outbox")
            if row is None:
                problems.append("no row in carrel_sessions")
            else:
                status, reason, st_answered, st_flagged = row
                if (status, reason) != ("ended", "submitted"):
                    problems.append(f"store says {status}/{reason}")
                if st_answered != answered or st_flagged != len(jflags):
                    problems.append(f"carrel_sessions answered {st_answered} flagged {st_flagged}, journal {answered} / {len(jflags)}")
            if s.session not in results:
                problems.append("no result in the store")
            if problems:
                bad.append((s.name, s.session, problems))
        say("  " + "; ".join(f"{k} {v}" for k, v in totals.items()))
        say(f"  (session, seq) pairs present twice in the store: {same_key}")
        clean = not bad and same_key == 0
        say(f"  seats compared: {sum(1 for s in self.seats if s.session)}; seats that differ: {len(bad)} — "
            + ("0 records lost, 0 duplicated" if clean else "RECORDS DIFFER"))
        for name, session, problems in bad[:10]:
            say(f"    {name} {session}: {'; '.join(problems)}")
        if bad:
            self.problems.append(f"{len(bad)} seats differ from the store")
        self.results["compare_clean"] = clean

    def record_counts(self):
        rows = self.pg.json("""
            SELECT coalesce(json_agg(json_build_array(session, n, d, m)), '[]')
            FROM (SELECT session, count(*) AS n, count(DISTINCT seq) AS d, max(seq) AS m FROM carrel_records GROUP BY session) x""")
        return {r[0]: tuple(r[1:]) for r in rows}

    def typing_part(self):
        """Typing latency in `carrel take --shared` with the store up, stopped and paused, in
        rounds (so that whatever else the machine does falls on every state alike), beside a
        seat without --shared typing in the same rounds."""
        a = self.args
        rounds = max(1, a.typing_rounds)
        per = max(1, a.keys // rounds)
        say(f"\n(c) typing in `carrel take --shared` (a pseudo-terminal; {per * rounds} keys 50 ms apart in each state, "
            f"in {rounds} rounds; no other seat running)")
        bench.CARREL = CARREL
        helper = bench.Bench(argparse.Namespace(keys=per, tabs=0, repeat=1, idle=0, sizes=[], seats=0, seat_items=0))
        self.bench_helper = helper
        helper.env.update(PGPASSFILE=self.pg.env["PGPASSFILE"])
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "CARREL_SHARED", "CARREL_ROOM"):
            helper.env.pop(name, None)
        alone = helper.carrel_in_question(self.args.typing_items)
        self.panes.append(alone)
        pane = helper.carrel_in_question(self.args.typing_items, ("--shared", self.pg.url, "--room", ROOM, "--seat", "typing"))
        self.panes.append(pane)
        state = os.path.join(helper.tmp, f"state-{helper.runs}")
        labels = ["no --shared (beside it)", "store up", "store down (stopped)", "store slow (paused, SIGSTOP)"]
        figures = {k: [] for k in labels}
        self.typing_waiting = []
        drains = []

        def keys(target, label):
            for other in (alone, pane):
                if other is not target:
                    other.drain()
            for i in range(per):
                figures[label].append(target.respond(b"abcdefghij"[i % 10:i % 10 + 1]))
                time.sleep(0.05)

        for _ in range(rounds):
            keys(alone, labels[0])
            keys(pane, labels[1])
            self.pg.stop()
            time.sleep(2)
            keys(pane, labels[2])
            self.pg.start()
            drains.append(self.wait_typing_seat(state, 30))
            self.pg.pause()
            time.sleep(2)
            keys(pane, labels[3])
            self.pg.resume()
            drains.append(self.wait_typing_seat(state, 60))
        for label in labels:
            v = figures[label]
            say(f"  {label}: typing p50 {ms(pct(v, 50))}, p99 {ms(pct(v, 99))}, max {ms(max(v))}")
        stuck = [d for d in drains if d is None]
        shown = [d for d in drains if d is not None]
        say(f"  when the store came back (pg_ctl start returned, or SIGCONT), the typing seat had up to {max(self.typing_waiting)} records "
            f"waiting; all were in the store within {max(shown) if shown else 0:.1f} s"
            + (f"; {len(stuck)} times NOT within the limit" if stuck else "")
            + f"; answer records of the typing seat in the store: {self.typing_answers(state)}")
        if stuck:
            self.problems.append("the typing seat did not drain after PostgreSQL came back")
        worst = max(pct(figures[k], 99) for k in labels[1:])
        self.results["typing"] = (worst, pct(figures[labels[0]], 99))
        say(f"  worst typing p99 with --shared {ms(worst)}, without {ms(pct(figures[labels[0]], 99))} "
            f"(scripts/bench's goal for typing: p99 <= 3 ms)")
        for p in (alone, pane):
            p.close()
            self.panes.remove(p)

    def wait_typing_seat(self, state, limit):
        """Seconds until the typing seat's outbox (as of now) is in the store; None after `limit`."""
        path = os.path.join(state, "journal.sqlite")
        start = time.monotonic()
        with _Closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)) as db:
            session, newest, waiting = db.execute(
                "SELECT session_id, (SELECT max(seq) FROM outbox), (SELECT count(*) FROM outbox WHERE kind <> '.published') "
                "FROM publication").fetchone()
        self.typing_waiting.append(waiting)
        while time.monotonic() - start < limit:
            try:
                have = int(self.pg.psql(f"SELECT coalesce(max(seq), 0) FROM carrel_records WHERE session = '{session}'", timeout=5).strip())
                if have >= newest:
                    return time.monotonic() - start
            except (RuntimeError, subprocess.TimeoutExpired, ValueError):
                pass
            time.sleep(0.1)
        return None

    def typing_answers(self, state):
        path = os.path.join(state, "journal.sqlite")
        with _Closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)) as db:
            session = db.execute("SELECT session_id FROM publication").fetchone()[0]
        return self.pg.psql(f"SELECT count(*) FROM carrel_records WHERE session = '{session}' AND kind = 'answer'").strip()

    def main(self):
        a = self.args
        self.results = {}
        say(f"carrel: {CARREL}\ndriver: {DRIVER}\n{os.cpu_count()} cores; load average at start "
            + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + f"; {a.seats} seats, {a.seconds:g} s of load, "
            f"{a.outage:g} s outage, {a.keys} keys per store state")
        url = self.pg.start()
        say(f"PostgreSQL: {url} (private cluster in {self.pg.folder})")
        self.reader.start()
        if a.seats > 0:
            self.start_seats()
            self.start_live_console()
            self.load_part()
            if a.outage > 0:
                self.outage_part()
            self.finish_seats()
            if self.console:
                alive = os.waitpid(self.console.pid, os.WNOHANG) == (0, 0)
                say(f"  the live console wrote {self.reader.console_bytes / 1024:.0f} KiB to its terminal during the run; "
                    + ("still running" if alive else "IT HAD ENDED"))
                if not alive:
                    self.problems.append("the live console (carrel proctor) ended during the run")
                self.console.close()
                self.panes.remove(self.console)
                self.console = None
            self.console_figures(f"seats gone ({len(self.seats)} sessions in the store)")
            self.compare()
        if a.keys > 0:
            self.typing_part()
        self.summary()
        say("\nload average at the end " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
        if self.problems:
            say("PROBLEMS:\n  " + "\n  ".join(self.problems))
        return 1 if self.problems else 0

    def summary(self):
        r, a = self.results, self.args
        say(f"\nsummary ({a.seats} seats, {a.seconds:g} s load, {a.outage:g} s outage):")
        if "delay_p99" in r:
            d = r["delay_p99"]
            say(f"  answer -> store p99: {ms(d) if d is not None else 'none'} (goal <= 1 s)")
        if r.get("console"):
            proctor, query = r["console"]
            say(f"  console under load: proctor --json median {ms(proctor)}, its query alone median "
                f"{ms(query) if query is not None else '?'} (goal < 100 ms)")
        if "drain" in r:
            say(f"  outboxes drained after the restart: " + (f"{r['drain']:.1f} s" if r["drain"] is not None else "NOT DRAINED")
                + " (goal <= 10 s)")
        if "compare_clean" in r:
            say("  journals against the store: " + ("0 lost, 0 duplicated" if r["compare_clean"] else "DIFFERENCES (see above)"))
        if "typing" in r:
            say(f"  typing p99 with --shared, worst of up/stopped/paused: {ms(r['typing'][0])} (without --shared {ms(r['typing'][1])})")

    def cleanup(self):
        self.reader.stopping = True
        for pane in list(self.panes):
            try:
                pane.close()
            except OSError:
                pass
        for s in self.seats:
            s.kill()
        self.pg.cleanup()
        if getattr(self, "bench_helper", None):
            self.bench_helper.cleanup()
        if self.args.keep:
            say(f"kept {self.tmp}")
        else:
            subprocess.run(["rm", "-rf", self.tmp])


class _Closing:
    def __init__(self, db):
        self.db = db

    def __enter__(self):
        return self.db

    def __exit__(self, *exc):
        self.db.close()


def main():
    p = argparse.ArgumentParser(description="Shared store figures: seats publishing to a private PostgreSQL.")
    p.add_argument("--seats", type=int, default=200, help="simulated seats (driver processes); 0 skips (a) and (b)")
    p.add_argument("--seconds", type=float, default=60, help="seconds of load before the outage")
    p.add_argument("--rate", type=float, default=1.0, help="answers per second per seat")
    p.add_argument("--outage", type=float, default=60, help="seconds PostgreSQL is stopped; 0 skips (b)")
    p.add_argument("--after", type=float, default=10, help="seconds of load once every seat has drained")
    p.add_argument("--drain-timeout", type=float, default=120, help="longest wait for the outboxes after the restart")
    p.add_argument("--start-timeout", type=float, default=180, help="longest wait for every seat to begin")
    p.add_argument("--proctor-runs", type=int, default=9, help="runs of `carrel proctor --json` per figure")
    p.add_argument("--query-runs", type=int, default=50, help="runs of the console's query per figure")
    p.add_argument("--keys", type=int, default=200, help="keys typed per store state in (c); 0 skips (c)")
    p.add_argument("--typing-rounds", type=int, default=4, help="rounds of the store states in (c)")
    p.add_argument("--typing-items", type=int, default=16, help="items of the test typed into in (c) (15000: a large test)")
    p.add_argument("--no-live-console", action="store_true", help="no `carrel proctor` console during the load")
    p.add_argument("--port", type=int, default=0, help="PostgreSQL's port (default: a free one)")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (journals, PostgreSQL's log)")
    args = p.parse_args()
    for path in (CARREL, DRIVER):
        if not os.access(path, os.X_OK):
            sys.exit(f"bench-shared: {path} is missing; run scripts/bench-shared (it builds it)")

    def stop(signum, _frame):
        say(f"\nbench-shared: stopped by signal {signum}; ending the seats and PostgreSQL")
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    run = Run(args)
    status = 2
    try:
        status = run.main()
    finally:
        run.cleanup()
    sys.exit(status)


if __name__ == "__main__":
    main()
