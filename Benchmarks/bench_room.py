#!/usr/bin/env python3
"""Figures of a room run by the proctor (issue: exam day), on a private PostgreSQL (loopback),
release build. Not part of the test suite; scripts/bench-room runs it.

Many seats (the headless session driver, one process each: the real runtime, journal and
publisher) wait in a room opened with `--start proctor`; the proctor's commands are the real
`carrel proctor ACTION`. Measured:
  (a) `carrel proctor start --room`: from the command's launch to each seat's `began`;
  (b) commands (message, time, message …): from the launch to each seat's applying it;
  (c) a pause of --pause seconds: each seat's time left when it applied the pause and the resume;
  (d) the seats cut off from the store for --outage seconds (a TCP relay between the seats and
      PostgreSQL stops), commands issued meanwhile by the proctor: from the relay's return to
      each seat's applying them all, in order, none twice;
  (f) --forged made-up sessions claiming the room (added as a seat's role may, through
      carrel_records): `carrel proctor --json --room` with the real seats among them;
  (g) then, the seats stopped: --light light seats (carrel-room-sim: real runtimes, journals and
      publishers, many in one process, no terminal) in a room of their own, each answering every
      few seconds: each record's way into the store (its time at the seat to PostgreSQL's
      receipt), `carrel proctor --json --room` over them, and a room-wide message from its
      launch to each seat's applying it;
  (e) then: typing in a real `carrel take --shared --room` (a pseudo-terminal) while the proctor
      adds time to it twice a second, beside a seat without a store.
With --per-seat, what each seat costs the store and itself, PostgreSQL pinned to core 0 and the
seats, the commands and this harness to core 1 (so that neither's processor time is the
other's; only processor time and counts are figures then, not delays): over (a) a seat's begin,
(b) a command applied, (d) a seat's return after the outage and (h) an answer (every seat
answering every --answer-every seconds for --steady seconds), each beside the room at rest
(seats waiting; seats running, measured for --steady seconds): PostgreSQL's processor time
(every server process, those that ended too, and the seats' own apart), the statements sent
and run (pg_stat_statements), round trips and bytes each way (counted at the relay), logins,
and the seat process's own processor time; then per seat and for 1 000 seats.
"""
import argparse
import os
import bench  # noqa: E402,F401  (the pseudo-terminal harness of scripts/bench)
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import bench_shared as shared  # noqa: E402  (Postgres, free_port, percentiles)

ROOT = shared.ROOT
CARREL = shared.CARREL
DRIVER = shared.DRIVER
SIM = os.environ.get("CARREL_SIM_BIN") or os.path.join(ROOT, ".build-bench", "release", "carrel-room-sim")
# The bench's proctor: a passphrase and its hash and signing key at the lowest cost Carrel
# accepts (the tests' proctor), so that a room's commands can be signed.
PASSPHRASE = "proctor phrase"
PROCTOR = ('proctor: {passphrase: "scrypt$ln=10,r=8,p=1$PilNsrVlqe1VmRGfsSMQ3A==$TfcMVSKeA9P1fLK3LHCjnNupqPmRdaATMnpz5K8ruiY=", '
           'key: "ed25519:NP6xnGmbUY40MGR7euraxIrLonTV2Dlj+jTG0v/GF4c=$ln=10,r=8,p=1$TwROBByWn5zlmHncA8mXSQ=="}\n')
ACTIONS = {"start", "pause", "resume", "time", "message", "end", "acknowledge"}


def with_key(path):
    """Adds the bench proctor's lines to an assessment file (once), in place."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if "\nproctor:" not in text:
        text = text.replace("\nsections:", "\n" + PROCTOR + "sections:", 1)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return path


def keyed_copy(path):
    """A copy of an assessment with the bench proctor's lines."""
    out = os.path.join(tempfile.gettempdir(), f"carrel-bench-keyed-{os.getpid()}-{os.path.basename(path)}")
    shutil.copyfile(path, out)
    return with_key(out)


ASSESSMENT = keyed_copy(shared.ASSESSMENT)
ROOM = "room-bench"
say = shared.say
spread = shared.spread
pct = shared.pct


def command_ids(out):
    """The numbers `carrel proctor ACTION` printed: `… (command 12, 13): …`."""
    if "(command " not in out:
        return []
    return [int(x) for x in out.split("(command ")[1].split(")")[0].split(", ")]


class Relay(threading.Thread):
    """A TCP relay from a loopback port to PostgreSQL that can be cut (every connection closed,
    new ones refused) and restored: the seats' network to the store, not the store itself."""

    def __init__(self, target_port):
        super().__init__(daemon=True)
        self.target = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.listener.listen(1024)
        self.listener.setblocking(False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, None)
        self.pairs = {}
        self.cut = False
        self.lock = threading.Lock()
        self.stopping = False
        # What the seats and the store said to each other through the relay (PostgreSQL's
        # protocol bytes, without TCP/IP's headers): bytes each way, and round trips, counted
        # as each time a seat speaks again after the store answered (a request that waits for
        # its answer; a notice from the store followed by the seat's read counts as one too).
        self.clients = set()
        self.last_up = {}
        self.up = self.down = self.turns = self.connections = 0

    def counters(self):
        """(bytes seats → store, bytes store → seats, round trips, connections) so far."""
        with self.lock:
            return self.up, self.down, self.turns, self.connections

    def close_pair(self, sock):
        other = self.pairs.pop(sock, None)
        for s in (sock, other):
            if s is None:
                continue
            self.pairs.pop(s, None)
            self.clients.discard(s)
            self.last_up.pop(s, None)
            try:
                self.selector.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()

    def set_cut(self, cut):
        with self.lock:
            self.cut = cut
            if cut:
                for s in list(self.pairs):
                    self.close_pair(s)

    def run(self):
        while not self.stopping:
            with self.lock:
                events = self.selector.select(0.05)
                for key, _ in events:
                    if key.data is None:
                        try:
                            client, _ = self.listener.accept()
                        except BlockingIOError:
                            continue
                        if self.cut:
                            client.close()
                            continue
                        try:
                            upstream = socket.create_connection(("127.0.0.1", self.target))
                        except OSError:
                            client.close()
                            continue
                        for s in (client, upstream):
                            s.setblocking(False)
                        self.pairs[client] = upstream
                        self.pairs[upstream] = client
                        self.clients.add(client)
                        self.connections += 1
                        self.selector.register(client, selectors.EVENT_READ, "pipe")
                        self.selector.register(upstream, selectors.EVENT_READ, "pipe")
                        continue
                    sock = key.fileobj
                    other = self.pairs.get(sock)
                    if other is None:
                        continue
                    try:
                        data = sock.recv(65536)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        self.close_pair(sock)
                        continue
                    if sock in self.clients:
                        self.up += len(data)
                        if not self.last_up.get(sock, False):
                            self.turns += 1
                        self.last_up[sock] = True
                    else:
                        self.down += len(data)
                        self.last_up[other] = False
                    try:
                        other.setblocking(True)
                        other.sendall(data)
                        other.setblocking(False)
                    except OSError:
                        self.close_pair(sock)


class SeatGroup:
    """The seats' processor time counted exactly, threads that ended included: every seat
    process joins a control group of its own before it runs Carrel (cgroup v1 `cpuacct`, in
    nanoseconds, or v2 `cpu.stat`, in microseconds) when this harness may make one (root);
    otherwise `path` is None and /proc/PID/stat's ticks (10 ms, sampled) are read instead.
    A seat keeps the harness's core: joining a group with a cpuset of its own could move it,
    so its affinity is set again after it joined."""

    PREFIX = "carrel-bench-seats-"

    def __init__(self, enabled=True):
        self.path = None
        self.v2 = False
        if not enabled:
            return
        for base, v2 in (("/sys/fs/cgroup/cpuacct", False), ("/sys/fs/cgroup", True), ("/sys/fs/cgroup/unified", True)):
            if not os.path.exists(os.path.join(base, "cgroup.procs")):
                continue
            self.sweep(base)
            path = os.path.join(base, f"{self.PREFIX}{os.getpid()}")
            try:
                os.mkdir(path)
            except OSError:
                continue
            if os.path.exists(os.path.join(path, "cpu.stat" if v2 else "cpuacct.usage")):
                self.path, self.v2 = path, v2
                return
            os.rmdir(path)

    def sweep(self, base):
        """Removes the empty groups of earlier runs that could not remove their own (killed)."""
        try:
            names = [n for n in os.listdir(base) if n.startswith(self.PREFIX)]
        except OSError:
            return
        for name in names:
            try:
                os.rmdir(os.path.join(base, name))
            except OSError:
                pass

    def joiner(self):
        """For Popen's preexec_fn: the child joins the group before it runs anything."""
        if not self.path:
            return None
        procs = os.path.join(self.path, "cgroup.procs")

        def join():
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)
        return join

    def keep_core(self, pid):
        """Sets a seat's threads back to the harness's cores if joining moved them."""
        wanted = os.sched_getaffinity(0)
        try:
            tasks = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            return
        for tid in tasks:
            try:
                if os.sched_getaffinity(tid) != wanted:
                    os.sched_setaffinity(tid, wanted)
            except OSError:
                pass

    def seconds(self):
        """The group's time so far; NaN when it cannot be read (never another source's)."""
        try:
            if self.v2:
                with open(os.path.join(self.path, "cpu.stat")) as f:
                    for line in f:
                        if line.startswith("usage_usec "):
                            return int(line.split()[1]) / 1e6
                return float("nan")
            with open(os.path.join(self.path, "cpuacct.usage")) as f:
                return int(f.read()) / 1e9
        except (OSError, ValueError, TypeError):
            return float("nan")

    def close(self):
        """Removes the group; processes still in it (a seat's helper left behind) go to its
        parent first, each on its own (one that ends meanwhile stops nothing)."""
        path, self.path = self.path, None
        if not path:
            return
        parent = os.path.dirname(path)
        for _ in range(10):
            try:
                with open(os.path.join(path, "cgroup.procs")) as f:
                    left = f.read().split()
            except OSError:
                left = []
            for pid in left:
                try:
                    with open(os.path.join(parent, "cgroup.procs"), "w") as f:
                        f.write(pid)
                except OSError:
                    pass
            try:
                os.rmdir(path)
                return
            except OSError:
                time.sleep(0.1)
        say(f"note: the control group {path} could not be removed")


class Costs:
    """What a spell of the room cost (--per-seat), from outside the product:
      - PostgreSQL's processor time: every server process's own time (schedstat) and, for the
        processes that ended within the spell (a proctor command's connection, a cut seat's),
        their whole time as the postmaster reaped them, less what they had used before; and,
        apart, the time of the seats' own server processes (application_name `carrel seat`);
      - the statements run (pg_stat_statements: calls, execution time) in the room's database;
      - the seats' processes' processor time (/proc/PID/stat utime + stime: every thread);
      - the seats' traffic through the relay: PostgreSQL protocol bytes each way and round trips.
    Statements are read through one psql connection kept open for the run (its own few
    statements are left out), so no login of the harness falls in a spell."""

    # Statements sent (top level) and run (with those inside Carrel's functions and triggers);
    # the time executing the statements sent (which holds their nested statements' time).
    STATEMENTS = ("SELECT coalesce(sum(calls) FILTER (WHERE toplevel), 0), coalesce(sum(calls), 0),"
                  " coalesce(sum(total_exec_time) FILTER (WHERE toplevel), 0) FROM pg_stat_statements"
                  " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                  " AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_stat_activity%';")
    SEAT_BACKENDS = "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE application_name = 'carrel seat';"

    def __init__(self, run):
        self.run = run
        self.psql = subprocess.Popen(["psql", "-X", "-q", "-A", "-t", run.pg.url], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=run.pg.env)
        self.rates = {}        # name -> figures per seat-second (a baseline)
        self.figures = []      # (label, per-seat dict) for the summary

    def sql(self, query):
        self.psql.stdin.write(query + "\n\\echo __end__\n")
        self.psql.stdin.flush()
        lines = []
        while True:
            line = self.psql.stdout.readline()
            if not line or line.strip() == "__end__":
                return lines
            lines.append(line.strip())

    def statements(self):
        sent, run, ms_ = self.sql(self.STATEMENTS)[-1].split("|")
        return {"calls": int(sent), "nested": int(run), "exec": float(ms_) / 1000}

    def snapshot(self, start):
        """The counters now; at a start the statements are read first, at an end last."""
        snap = {}
        if start:
            snap.update(self.statements())
        snap["t"] = time.monotonic()
        master = self.run.pg.postmaster()
        snap["pg"] = {pid: shared.run_seconds(pid) for pid in self.run.pg.pids()}
        snap["reaped"] = shared.reaped_seconds(master) if master else 0.0
        group = self.run.seat_group
        snap["seat"] = group.seconds() if group.path else shared.cpu_seconds([s.proc.pid for s in self.run.seats])
        snap["relay"] = self.run.relay.counters()
        if not start:
            snap.update(self.statements())
            pids = (self.sql(self.SEAT_BACKENDS) or [""])[-1]
            snap["seat_backends"] = {int(x) for x in pids.split()}
        return snap

    def between(self, a, b):
        """The figures of the spell from snapshot a to snapshot b (totals, seconds and bytes)."""
        pg_live = sum(v - (a["pg"].get(pid) or 0) for pid, v in b["pg"].items() if v is not None)
        ended = sum(v for pid, v in a["pg"].items() if v is not None and b["pg"].get(pid) is None)
        pg_all = pg_live + (b["reaped"] - a["reaped"]) - ended
        pg_seats = sum(v - (a["pg"].get(pid) or 0) for pid, v in b["pg"].items()
                       if v is not None and pid in b["seat_backends"])
        up, down, turns, conns = (y - x for x, y in zip(a["relay"], b["relay"]))
        return {"seconds": b["t"] - a["t"], "pg": max(0.0, pg_all), "pg_seats": pg_seats, "calls": b["calls"] - a["calls"], "nested": b["nested"] - a["nested"],
                "exec": b["exec"] - a["exec"], "seat": b["seat"] - a["seat"], "up": up, "down": down, "turns": turns,
                "connections": conns}

    KEYS = ("pg", "pg_seats", "calls", "nested", "exec", "seat", "up", "down", "turns", "connections")

    def less(self, f, rate, seat_seconds):
        """f less a baseline `rate` (per seat-second) over `seat_seconds`."""
        out = dict(f)
        for k in self.KEYS:
            out[k] = f[k] - rate[k] * seat_seconds
        return out

    @staticmethod
    def each(f, n):
        return {k: (v / n if k != "seconds" else v) for k, v in f.items()}

    def line(self, label, f):
        """One line of figures per unit (f already divided)."""
        say(f"  {label}: PostgreSQL {f['pg'] * 1000:.2f} ms of processor time (the seats' own server processes"
            f" {f['pg_seats'] * 1000:.2f} ms), {f['calls']:.1f} statements sent ({f['exec'] * 1000:.2f} ms from each one's start to its end, waits included;"
            f" {f['nested']:.1f} run with those inside functions and triggers),"
            f" {f['turns']:.1f} round trips, {f['up']:.0f} B sent / {f['down']:.0f} B received, {f['connections']:.2f} logins;"
            f" the seat's process {f['seat'] * 1000:.2f} ms")

    def baseline(self, name, seconds, n):
        """Measures and keeps the room's cost at rest for `seconds` (per seat-second)."""
        a = self.snapshot(True)
        self.run.pump(seconds)
        f = self.between(a, self.snapshot(False))
        rate = {k: f[k] / (n * f["seconds"]) for k in self.KEYS}
        self.rates[name] = rate
        self.line(f"{name}, per seat and second ({n} seats, {f['seconds']:.1f} s)", rate)
        return rate

    def report(self, label, f, units, unit_name, net=None):
        """Prints a spell's figures per unit (a seat's begin, a command applied …), raw and
        less the room's cost at rest (`net`: the figures with the baseline taken off)."""
        per = self.each(f, units)
        self.line(f"per {unit_name} ({units} in {f['seconds']:.1f} s), all", per)
        if net is not None:
            per = self.each(net, units)
            self.line(f"per {unit_name}, less the room at rest meanwhile", per)
        self.figures.append((label, unit_name, per))

    def summary(self):
        if not self.figures:
            return
        say("\nCost per seat (PostgreSQL pinned to core 0, seats and the harness to core 1), and what it makes of 1 000 seats"
            + (" (the seats' processor time from their control group: every thread, those that ended too):" if self.run.seat_group.path
               else " (the seats' processor time from /proc/PID/stat, in 10 ms ticks):"))
        for label, unit, f in self.figures:
            total = f["pg"] * 1000
            if unit == "second":
                say(f"  {label:38} PostgreSQL {f['pg'] * 1000:6.3f} ms ({f['pg_seats'] * 1000:.3f} ms in the seats' own backends),"
                    f" {f['turns']:5.2f} round trips, {(f['up'] + f['down']) / 1000:6.3f} kB, seat {f['seat'] * 1000:6.3f} ms"
                    f" per second; 1 000 of them keep {total * 100:.1f} % of one PostgreSQL core busy")
                continue
            say(f"  {label:38} PostgreSQL {f['pg'] * 1000:6.2f} ms ({f['pg_seats'] * 1000:.2f} ms in the seats' own backends),"
                f" {f['turns']:5.1f} round trips, {(f['up'] + f['down']) / 1000:6.2f} kB, seat {f['seat'] * 1000:6.2f} ms"
                f" per {unit}; 1 000 of them: {total:.2f} s of one PostgreSQL core, ≥ {total / 2:.2f} s on 2 cores,"
                f" ≥ {total / 8:.2f} s on 8")

    def close(self):
        try:
            self.psql.stdin.close()
            self.psql.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.psql.kill()


class Seat:
    def __init__(self, run, index):
        self.name = f"S{index:03d}"
        self.state = os.path.join(run.tmp, "seats", self.name)
        os.makedirs(self.state, mode=0o700)
        self.waiting = None
        self.began = None
        self.commands = []          # (command number, monotonic time seen)
        self.lefts = {}             # command number -> time left when the seat applied it
        self.states = []            # parsed `state` lines
        self.acks = 0               # answers committed (`ack ITEM`)
        self.partial = b""
        self.errors = open(self.state + ".stderr", "wb")
        # Each seat of a lab clears its own machine's tmux servers; here every seat shares one
        # machine, whose servers are the harness's, not the seats': each seat looks in a
        # folder of its own (as on a lab machine with no tmux running).
        seat_env = dict(run.env, TMUX_TMPDIR=self.state + "-tmux")
        self.proc = subprocess.Popen(
            [DRIVER, "--state-dir", self.state, "--candidate", f"Candidate {index:03d}", "--shared", run.seat_url,
             "--room", ROOM, "--seat", self.name, "--follow", "--wait-start", "begin", ASSESSMENT],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, env=seat_env, cwd=ROOT,
            preexec_fn=run.seat_group.joiner())
        if run.seat_group.path:
            run.seat_group.keep_core(self.proc.pid)
        os.set_blocking(self.proc.stdout.fileno(), False)

    def send(self, line):
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            pass

    def readable(self):
        try:
            data = os.read(self.proc.stdout.fileno(), 65536)
        except BlockingIOError:
            return True
        if not data:
            return False
        now = time.monotonic()
        self.partial += data
        *lines, self.partial = self.partial.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace")
            if line.startswith("waiting "):
                self.waiting = now
            elif line.startswith("began "):
                self.began = now
            elif line.startswith("ack "):
                self.acks += 1
            elif line.startswith("command "):
                parts = line.split()
                left = next((float(p[5:]) for p in parts[2:] if p.startswith("left=") and p[5:] != "-"), None)
                self.commands.append((int(parts[1]), now))
                self.lefts[int(parts[1])] = left
            elif line.startswith("state "):
                fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
                self.states.append((now, fields))
        return True


class Run:
    def __init__(self, args):
        self.args = args
        self.tmp, self.pg, self.env = shared.workspace("carrel-bench-room-", args.port)
        self.seats = []
        self.relay = None
        self.selector = selectors.DefaultSelector()
        self.ok = True
        self.helper = None
        self.costs = None
        # With --per-seat: the seats' processor time from a control group of their own.
        self.seat_group = SeatGroup(enabled=args.per_seat)

    def pump(self, seconds):
        """Reads every seat's output for `seconds`."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            for key, _ in self.selector.select(min(left, 0.05)):
                if not key.data.readable():
                    self.selector.unregister(key.fileobj)

    def until(self, condition, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if condition():
                return True
            self.pump(0.05)
        return condition()

    def carrel(self, *words, url=None):
        # Output goes to a file: a pipe the harness does not read while it pumps the seats
        # would fill (a large --json) and stop the command.
        out = tempfile.TemporaryFile()
        signs = len(words) > 1 and words[0] == "proctor" and words[1] in ACTIONS
        started = time.monotonic()
        proc = subprocess.Popen([CARREL, *words, "--shared", url or self.pg_url, *(("--passphrase-stdin",) if signs else ())],
                                stdout=out, stderr=subprocess.STDOUT, env=self.env,
                                stdin=subprocess.PIPE if signs else subprocess.DEVNULL)
        if signs:
            proc.stdin.write((PASSPHRASE + "\n").encode())
            proc.stdin.close()
        proc.output = out
        return started, proc

    def finish(self, proc):
        while proc.poll() is None:
            self.pump(0.02)
        proc.output.seek(0)
        text = proc.output.read().decode(errors="replace")
        proc.output.close()
        return proc.returncode, text, ""

    def command(self, *words, url=None):
        started, proc = self.carrel(*words, url=url)
        code, out, err = self.finish(proc)
        return started, time.monotonic() - started, code, out + err

    def main(self):
        a = self.args
        # Every seat holds one connection; the proctor's commands and the harness need a few more.
        os.environ["CARREL_PG_MAX_CONNECTIONS"] = str(max(300, a.seats + 100, a.light + 100))
        if a.profile_store or a.per_seat:
            os.environ["CARREL_PG_OPTIONS"] = "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
        self.pg.start()
        if a.profile_store or a.per_seat:
            self.pg.psql("CREATE EXTENSION pg_stat_statements")
        if a.per_seat and self.pinned:
            # PostgreSQL on core 0: its processes now, and through the postmaster every server
            # process it starts later; this harness (and so every seat and command it starts) is
            # on core 1. Neither's processor time is then the other's.
            for pid in self.pg.pids():
                try:
                    os.sched_setaffinity(pid, {0})
                except OSError:
                    pass
        self.pg_url = self.pg.url + "?sslmode=disable"
        self.env["PGPASSFILE"] = os.path.join(self.pg.folder, "pgpass")
        self.relay = Relay(self.pg.port)
        self.relay.start()
        # The seats reach PostgreSQL through the relay (its password line names that port).
        with open(os.path.join(self.pg.folder, "pgpass")) as f:
            password = f.read().strip().split(":")[-1]
        relay_pass = os.path.join(self.tmp, "pgpass")
        with open(relay_pass, "w") as f:
            f.write(f"127.0.0.1:{self.pg.port}:*:carrel:{password}\n127.0.0.1:{self.relay.port}:*:carrel:{password}\n")
        os.chmod(relay_pass, 0o600)
        self.env["PGPASSFILE"] = relay_pass
        self.seat_url = self.pg_url.replace(f":{self.pg.port}/", f":{self.relay.port}/")
        if a.per_seat:
            self.costs = Costs(self)
        if a.sealed:
            global ASSESSMENT
            sealed = os.path.join(self.tmp, "room.carrel")
            made = subprocess.run([CARREL, "seal", ASSESSMENT, "--out", sealed], input=(PASSPHRASE + "\n") * 2,
                                  capture_output=True, text=True, env=self.env)
            if made.returncode != 0:
                say(f"seal failed: {made.stderr}")
                return 2
            ASSESSMENT = sealed
        _, took, code, out = self.command("room", "open", ROOM, ASSESSMENT, "--start", "proctor", "--machines", "any")
        if code != 0:
            say(f"room open failed: {out}")
            return 2
        if a.seats > 0:
            status = self.seat_parts()
            if self.costs:
                self.costs.summary()
            if status is not None:
                return status
        if a.forged > 0:
            self.forged_part()
        # The light seats, then typing, are measured with no other seat running.
        for seat in self.seats:
            seat.proc.kill()
        self.pump(1)
        if a.light > 0:
            self.light_part()
        if a.keys > 0:
            self.typing_part()
        return 0 if self.ok else 1

    def perf_start(self, path):
        """With --perf-begin: `perf record` of the seats' core (1, with --per-seat) from now, once
        it records (it takes a moment to start)."""
        if not path:
            return None
        perf = subprocess.Popen(["perf", "record", "-q", "-C", "1" if self.args.per_seat else "0-" + str(os.cpu_count() - 1),
                                 "-g", "-F", "2999", "-o", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2)
        return perf

    def perf_stop(self, perf):
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
            say(f"  perf record of the seats' core during (a): {self.args.perf_begin} (perf report -i FILE --comms ...)")

    def store_profile_reset(self):
        if self.args.profile_store:
            if self.costs:
                self.costs.sql("SELECT pg_stat_statements_reset();")
            else:
                self.pg.psql("SELECT pg_stat_statements_reset()")

    def store_profile(self, part):
        """With --profile-store: the statements that took the store's time in `part`."""
        if not self.args.profile_store:
            return
        out = self.pg.psql("""
            SELECT round(total_exec_time::numeric, 1), calls, round((total_exec_time / greatest(calls, 1))::numeric, 3),
                   left(regexp_replace(query, '\\s+', ' ', 'g'), 110)
            FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12""")
        say(f"  the store's statements in ({part}): total ms | calls | ms each | statement")
        for line in out.strip().splitlines():
            say("    " + line)
        # Rows written so far, and how many updates stayed on their page (HOT: no index written).
        out = self.pg.psql("""
            SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_live_tup, n_dead_tup,
                   pg_relation_size(relid) / 8192
            FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd > 0 ORDER BY n_tup_upd + n_tup_ins DESC LIMIT 8""")
        say(f"  the store's tables after ({part}): table | inserted | updated | of them on their page | live | dead | pages")
        for line in out.strip().splitlines():
            say("    " + line)

    def seat_parts(self):
        """(a) to (d) with --seats driver seats; a number when the run cannot go on."""
        a = self.args
        say(f"{a.seats} seats waiting in room {ROOM} (carrel-session-driver, through a TCP relay) …")
        for i in range(a.seats):
            seat = Seat(self, i)
            self.seats.append(seat)
            self.selector.register(seat.proc.stdout, selectors.EVENT_READ, seat)
        if not self.until(lambda: all(s.waiting for s in self.seats), a.start_timeout):
            say(f"only {sum(1 for s in self.seats if s.waiting)} seats waiting after {a.start_timeout} s")
            return 2
        # Every seat announced itself to the store (the proctor's start targets the seats it sees).
        self.pump(3)
        costs = self.costs
        if costs:
            say(f"\nwhat the room costs at rest, seats waiting for the start ({a.seats} seats)")
            costs.baseline("waiting", 5, a.seats)

        say("\n(a) carrel proctor start --room: from the command's launch to each seat's `began`")
        seat_pids = [s.proc.pid for s in self.seats]
        perf = self.perf_start(a.perf_begin)
        cpu_before = (shared.cpu_seconds(seat_pids), shared.cpu_seconds(self.pg.pids()), sum(os.times()[:2]), shared.machine_cpu())
        self.store_profile_reset()
        cost_from = costs.snapshot(True) if costs else None
        started, took, code, out = self.command("proctor", "start", "--room", ROOM, "--wait", "30", "--yes")
        began = [s.began - started for s in self.seats if s.began]
        self.until(lambda: all(s.began for s in self.seats), 10)
        began = [s.began - started for s in self.seats if s.began]
        if costs:
            # The begin's first records reach the store after `began`: 2 s more.
            self.pump(2)
            start_cost = costs.between(cost_from, costs.snapshot(False))
        self.perf_stop(perf)
        say(f"  began: {spread(began)}; command exited {code} after {shared.ms(took)}")
        busy = shared.machine_cpu()
        say(f"  processor time meanwhile: seats {shared.cpu_seconds(seat_pids) - cpu_before[0]:.1f} s,"
            f" PostgreSQL {shared.cpu_seconds(self.pg.pids()) - cpu_before[1]:.1f} s (backends still open),"
            f" this harness and its relay {sum(os.times()[:2]) - cpu_before[2]:.1f} s;"
            f" machine {(busy[0] - cpu_before[3][0]) / max(1, busy[1] - cpu_before[3][1]) * 100:.0f} % busy")
        if code != 0:
            say("  " + out.strip().replace("\n", "\n  ")[-600:])
        self.store_profile("a")
        ok = len(began) == a.seats and pct(began, 99) <= 1.0
        say(f"  every seat began, p99 ≤ 1 s: {shared.verdict(ok)}")
        self.ok &= ok
        if costs:
            # Each seat waited until its `began` and ran after it: the room's cost at rest in
            # either state over those seat-seconds is taken off.
            end = cost_from["t"] + start_cost["seconds"]
            waited = sum(s.began - cost_from["t"] for s in self.seats if s.began)
            ran = sum(end - s.began for s in self.seats if s.began)
            say(f"\nwhat the room costs at rest, seats running and not answering ({a.seats} seats, {a.steady:.0f} s)")
            running = costs.baseline("running", a.steady, a.seats)
            costs.figures.append(("a running seat at rest", "second", running))
            say("\n(a) what a seat's begin cost (from the start's launch to 2 s after the last `began`)")
            net = costs.less(costs.less(start_cost, costs.rates["waiting"], waited), running, ran)
            costs.report("(1) a seat's begin (room start)", start_cost, len(began), "seat begun", net)

        say("\n(b) commands: from the launch of `carrel proctor ACTION --room` to each seat's applying it")
        self.store_profile_reset()
        applied_all = []
        cost_from = costs.snapshot(True) if costs else None
        for words in (["message", "Question 3: read Sydney as Canberra"], ["time", "+1m"], ["message", "Ten minutes left"],
                      ["time", "+2m"], ["message", "Check your name"]):
            before = {id(s): len(s.commands) for s in self.seats}
            started, took, code, out = self.command("proctor", words[0], "--room", ROOM, words[1], "--wait", "30")
            self.until(lambda: all(len(s.commands) > before[id(s)] for s in self.seats), 10)
            lat = [s.commands[before[id(s)]][1] - started for s in self.seats if len(s.commands) > before[id(s)]]
            applied_all += lat
            say(f"  {words[0]:8} {spread(lat)}; exit {code} after {shared.ms(took)}")
        ok = len(applied_all) == 5 * a.seats and pct(applied_all, 99) <= 1.0
        say(f"  applied by all, p99 ≤ 1 s: {shared.verdict(ok)}")
        self.ok &= ok
        if costs:
            # The applied commands' records reach the store after the seat applied them: 2 s more.
            self.pump(2)
            f = costs.between(cost_from, costs.snapshot(False))
            say("  what a command applied cost (the five commands' launches to 2 s after the last was applied;"
                " the proctor's five `carrel proctor ACTION --wait 30` are in PostgreSQL's total, not in the seats' backends)")
            costs.report("(2) a command applied by a seat", f, len(applied_all), "command applied",
                         costs.less(f, costs.rates["running"], a.seats * f["seconds"]))
        self.store_profile("b")

        say(f"\n(c) a pause of {a.pause:.0f} s: each seat's time left when it applied the pause and the resume")
        _, _, _, out = self.command("proctor", "pause", "--room", ROOM, "--wait", "30")
        pause_ids = command_ids(out)
        self.pump(a.pause)
        _, _, _, out = self.command("proctor", "resume", "--room", ROOM, "--wait", "30")
        resume_ids = command_ids(out)
        self.pump(1)
        drift = []
        for s in self.seats:
            before = next((s.lefts.get(i) for i in pause_ids if s.lefts.get(i) is not None), None)
            after = next((s.lefts.get(i) for i in resume_ids if s.lefts.get(i) is not None), None)
            if before is not None and after is not None:
                drift.append(abs(before - after))
        say(f"  |time left at the resume − at the pause|: p50 {pct(drift, 50):.3f} s, max {max(drift) if drift else float('nan'):.3f} s"
            f" ({len(drift)} seats)")
        ok = len(drift) == a.seats and max(drift) <= 1.0
        say(f"  every seat within ±1 s: {shared.verdict(ok)}")
        self.ok &= ok

        say(f"\n(d) the seats cut off from the store for {a.outage:.0f} s; three commands issued meanwhile")
        before = {id(s): len(s.commands) for s in self.seats}
        self.relay.set_cut(True)
        self.pump(2)
        ids = []
        for words in (["message", "During the outage 1"], ["time", "+1m"], ["message", "During the outage 2"]):
            _, _, code, out = self.command("proctor", words[0], "--room", ROOM, words[1], "--wait", "0")
            ids += command_ids(out)
        self.pump(max(0, a.outage - 2))
        self.store_profile_reset()
        cost_from = costs.snapshot(True) if costs else None
        back = time.monotonic()
        self.relay.set_cut(False)
        self.until(lambda: all(len(s.commands) - before[id(s)] >= len(ids) for s in self.seats), 30)
        if costs:
            # Each seat's backlog (its time saves of the outage, the commands' acknowledgements)
            # reaches the store after it applied the commands: 3 s more.
            self.pump(3)
            return_cost = costs.between(cost_from, costs.snapshot(False))
        late = []
        wrong = 0
        for s in self.seats:
            got = s.commands[before[id(s)]:]
            numbers = [n for n, _ in got]
            if numbers != sorted(set(numbers)) or numbers[:len(ids)] != ids:
                wrong += 1
            if len(got) >= len(ids):
                late.append(got[len(ids) - 1][1] - back)
        say(f"  commands {ids}: all applied by {len(late)} of {a.seats} seats; from the return: {spread(late)};"
            f" seats with a command missing, twice or out of order: {wrong}")
        self.store_profile("d")
        ok = len(late) == a.seats and wrong == 0 and (max(late) if late else 99) <= 2.0
        say(f"  every seat within 2 s, in order, none twice: {shared.verdict(ok)}")
        self.ok &= ok
        if costs:
            say(f"  what a seat's return cost (from the relay's return to 3 s after the last seat applied the three commands:"
                f" a new connection and login, the schema's check, the commands read and applied, {a.outage:.0f} s of"
                f" records sent)")
            costs.report("(3) a seat's return after the outage", return_cost, a.seats, "seat returned",
                         costs.less(return_cost, costs.rates["running"], a.seats * return_cost["seconds"]))
            self.steady_part()
        return None

    def steady_part(self):
        """(h) with --per-seat: every seat answers every --answer-every seconds for --steady
        seconds (an answer record and its time save each): what an answer costs."""
        a, costs = self.args, self.costs
        say(f"\n(h) every seat answers every {a.answer_every:g} s for {a.steady:.0f} s (the text item, a new answer each time)")
        acks = sum(s.acks for s in self.seats)
        self.store_profile_reset()
        cost_from = costs.snapshot(True)
        start = time.monotonic()
        due = [start + a.answer_every * i / len(self.seats) for i in range(len(self.seats))]
        sent = 0
        while time.monotonic() - start < a.steady:
            now = time.monotonic()
            for i, s in enumerate(self.seats):
                if now >= due[i]:
                    sent += 1
                    response = f'{{"text":{{"_0":"{s.name} steady answer {sent}"}}}}'
                    s.send(f"answer largest {response}")
                    due[i] += a.answer_every
            self.pump(0.02)
        # The last answers' records reach the store: 2 s more (at rest, taken off).
        self.pump(2)
        f = costs.between(cost_from, costs.snapshot(False))
        committed = sum(s.acks for s in self.seats) - acks
        say(f"  {sent} answers given, {committed} committed at the seats")
        self.store_profile("h")
        costs.report("(4) an answer of an answering seat", f, max(1, committed), "answer",
                     costs.less(f, costs.rates["running"], a.seats * f["seconds"]))
        ok = committed == sent
        say(f"  every answer committed: {shared.verdict(ok)}")
        self.ok &= ok

    def light_part(self):
        a = self.args
        room = "room-light"
        say(f"\n(g) {a.light} light seats (carrel-room-sim: real runtimes and publishers, one process), each answering"
            f" every {a.light_every:g} s for {a.light_seconds:.0f} s")
        _, _, code, out = self.command("room", "open", room, ASSESSMENT)
        if code != 0:
            say(f"  room open failed: {out}")
            self.ok = False
            return
        state = os.path.join(self.tmp, "light")
        os.makedirs(state)
        errors = open(os.path.join(self.tmp, "light.stderr"), "wb")
        started = time.monotonic()
        sim = subprocess.Popen([SIM, "--url", self.pg_url, "--room", room, "--seats", str(a.light), "--state", state,
                                "--answer-every", str(a.light_every), "--duration", str(a.light_seconds), "--file", ASSESSMENT,
                                "--reads", str(max(1, int(a.light_seconds / 4)))],
                               stdout=subprocess.PIPE, stderr=errors, env=self.env, cwd=ROOT)
        applied = {}
        ready = [None]
        done = [None]
        reads = []

        def read():
            for raw in sim.stdout:
                line = raw.decode(errors="replace").split()
                if not line:
                    continue
                if line[0] == "ready":
                    ready[0] = time.monotonic()
                elif line[0] == "command" and len(line) == 4:
                    applied.setdefault(int(line[1]), []).append(float(line[3]))
                elif line[0] == "done":
                    done[0] = int(line[1])
                elif line[0] == "read" and len(line) == 3:
                    reads.append((float(line[1]) / 1000, int(line[2])))
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        while ready[0] is None and sim.poll() is None and time.monotonic() - started < 600:
            time.sleep(0.2)
        if ready[0] is None:
            errors.flush()
            with open(os.path.join(self.tmp, "light.stderr"), errors="replace") as f:
                say(f"  the light seats did not begin: {f.read()[-600:]}")
            self.ok = False
            sim.kill()
            return
        say(f"  {a.light} seats began in {ready[0] - started:.0f} s; every seat publishing and following the room")
        # PostgreSQL's and the light seats' processor time over the run, beside the machine's.
        cpu_from = (time.monotonic(), shared.machine_cpu(), shared.cpu_seconds([sim.pid]))
        time.sleep(min(10, a.light_seconds / 4))

        # The console's reading over them.
        self.store_profile_reset()
        runs = []
        listed = 0
        for _ in range(5):
            _, took, code, out = self.command("proctor", "--json", "--room", room)
            runs.append(took)
            listed = out.count('"seat" : "L')
        runs.sort()
        say(f"  carrel proctor --json --room (a whole process: start, login, read, print): median {shared.ms(runs[2])},"
            f" max {shared.ms(runs[-1])}; seats listed {listed}")
        ok_console = listed == a.light

        # A room-wide message.
        launched = time.time()
        _, took, code, out = self.command("proctor", "message", "--room", room, "Ten minutes left", "--wait", "30")
        ids = command_ids(out)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (ids and len(applied.get(ids[-1], [])) >= a.light):
            time.sleep(0.1)
        lat = [t - launched for t in applied.get(ids[-1], [])] if ids else []
        say(f"  room-wide message: applied by {len(lat)} of {a.light}; {spread(lat)}; `proctor message` exited {code}"
            f" after {shared.ms(took)}")
        ok_message = len(lat) == a.light and pct(lat, 99) <= 2.0
        self.store_profile("g")

        while done[0] is None and sim.poll() is None:
            time.sleep(0.5)
        wall = time.monotonic() - cpu_from[0]
        busy_to = shared.machine_cpu()
        machine = (busy_to[0] - cpu_from[1][0]) / max(1e-9, busy_to[1] - cpu_from[1][1]) * 100
        sim_cpu = shared.cpu_seconds([sim.pid]) - cpu_from[2]
        sim.wait()
        reader.join(5)
        say(f"  over the {wall:.0f} s run: machine {machine:.0f} % busy ({os.cpu_count()} cores); the light seats' process"
            f" {sim_cpu:.0f} s of processor time, PostgreSQL and the rest the remainder")
        # Each answer's way into the store: its time at the seat (the record's `at`) to
        # PostgreSQL's receipt (`received_at`), over every answer of the run.
        out = self.pg.psql("""
            SELECT count(*),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM received_at - at)),
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM received_at - at)),
                   max(extract(epoch FROM received_at - at))
            FROM carrel_records r JOIN carrel_sessions s USING (session)
            WHERE s.room = 'room-light' AND r.kind = 'answer'""", timeout=300).strip()
        try:
            count, p50, p99, worst = out.splitlines()[-1].split("|")
            count, p50, p99, worst = int(count), float(p50), float(p99), float(worst)
        except ValueError:
            say(f"  the store's records could not be read: {out[-300:]}")
            self.ok = False
            return
        say(f"  answers in the store: {count} of {done[0]} given; seat → store p50 {shared.ms(p50)}, p99 {shared.ms(p99)},"
            f" max {shared.ms(worst)}")
        ok_records = done[0] is not None and count == done[0] and p99 <= 1.0
        read_times = [t for t, _ in reads]
        say(f"  the console's read of the room (SharedReader.seats, {len(reads)} times while the seats ran): {spread(read_times)};"
            f" seats read {min((n for _, n in reads), default=0)}–{max((n for _, n in reads), default=0)}")
        ok_console = ok_console and bool(read_times) and pct(read_times, 50) <= 0.1
        say(f"  records p99 ≤ 1 s: {shared.verdict(ok_records)}; console lists every seat, its read under 100 ms: {shared.verdict(ok_console)};"
            f" message applied by all, p99 ≤ 2 s: {shared.verdict(ok_message)}")
        self.ok &= ok_records and ok_console and ok_message

    def forged_part(self):
        a = self.args
        say(f"\n(f) {a.forged} made-up sessions claiming room {ROOM} (session records, as a seat's role may add them)")
        t0 = time.monotonic()
        self.pg.psql(f"""
            INSERT INTO carrel_records (session, seq, kind, at, body)
            SELECT 'forged-' || g, 1, 'session', now(),
                   jsonb_build_object('room', '{ROOM}', 'seat', 'F' || g, 'candidate', 'E👍🏽 ' || g, 'assessment_id', 'x',
                                      'assessment_title', repeat('T', 400), 'fingerprint', 'sha256:0', 'total', 8)
            FROM generate_series(1, {a.forged}) g""", timeout=1200)
        say(f"  added in {time.monotonic() - t0:.0f} s")
        runs = []
        real = 0
        for _ in range(5):
            started, took, code, out = self.command("proctor", "--json", "--room", ROOM)
            runs.append(took)
            real = sum(1 for s in self.seats if f'"seat" : "{s.name}"' in out)
        runs.sort()
        say(f"  carrel proctor --json --room: median {shared.ms(runs[len(runs) // 2])}, max {shared.ms(runs[-1])};"
            f" the {len(self.seats)} real seats listed: {real} (the reading shows the live seats first, 2000 at most)")
        ok = real == len(self.seats)
        say(f"  every real seat shown among the forged ones: {shared.verdict(ok)}")
        self.ok &= ok

    def typing_part(self):
        a = self.args
        say(f"\n(e) typing in `carrel take --shared --room` while `carrel proctor time` arrives twice a second"
            f" ({a.keys} keys 50 ms apart; the same beside it without a store)")
        bench.CARREL = CARREL
        # The typing bench's own defaults, with this part's figures: an option added there
        # later is never missing here.
        helper = bench.Bench(bench.arguments().parse_args(
            ["--keys", str(a.keys), "--tabs", "0", "--repeat", "1", "--idle", "0", "--sizes", "--seats", "0", "--seat-items", "0"]))
        self.helper = helper
        helper.env.update(PGPASSFILE=self.env["PGPASSFILE"])
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "CARREL_SHARED", "CARREL_ROOM"):
            helper.env.pop(name, None)
        path = with_key(helper.assessment(16))
        _, _, code, out = self.command("room", "open", "typing", path)
        if code != 0:
            say(f"  room open failed: {out}")
            self.ok = False
            return
        def in_question(extra=()):
            # The test carries the bench's proctor key, so its start screen asks the proctor's
            # passphrase (typed on the start screen itself) before the lock question.
            help_key, ask, yes, banner, header = helper.words()
            seat = helper.carrel(16, extra)
            seat.read_until("Proctor passphrase")
            seat.send_until(PASSPHRASE.encode() + b"\r", ask)
            seat.send_until(yes, banner)
            seat.send_until(b" ", header)
            seat.drain(0.3)
            return seat

        alone = in_question()
        pane = in_question(("--shared", self.pg_url, "--room", "typing", "--seat", "T1"))
        stop = threading.Event()
        sent = [0]

        def commands():
            while not stop.is_set():
                subprocess.run([CARREL, "proctor", "time", "--room", "typing", "--seat", "T1", "+1m", "--wait", "0",
                                "--shared", self.pg_url, "--passphrase-stdin"], capture_output=True, env=self.env,
                               input=(PASSPHRASE + "\n").encode())
                sent[0] += 1
                stop.wait(0.5)

        figures = {"alone": [], "commands": []}
        for target, label in ((alone, "alone"), (pane, "commands")):
            worker = None
            if label == "commands":
                worker = threading.Thread(target=commands, daemon=True)
                worker.start()
            for other in (alone, pane):
                if other is not target:
                    other.drain()
            for i in range(a.keys):
                figures[label].append(target.respond(b"abcdefghij"[i % 10:i % 10 + 1]))
                time.sleep(0.05)
            if worker:
                stop.set()
                worker.join()
        for label, v in figures.items():
            say(f"  {label:9}: typing p50 {shared.ms(pct(v, 50))}, p99 {shared.ms(pct(v, 99))}, max {shared.ms(max(v))}")
        say(f"  {sent[0]} commands sent while typing")
        ok = pct(figures["commands"], 99) <= 0.003
        say(f"  typing p99 ≤ 3 ms while commands arrive: {shared.verdict(ok)}")
        self.ok &= ok
        for p in (alone, pane):
            p.close()

    def cleanup(self):
        if self.costs:
            self.costs.close()
        for s in self.seats:
            try:
                s.proc.kill()
            except OSError:
                pass
        for s in self.seats:
            try:
                s.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.seat_group.close()
        if self.relay:
            self.relay.stopping = True
        if self.helper:
            self.helper.cleanup()
        self.pg.cleanup()
        if not self.args.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        else:
            say(f"kept {self.tmp}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seats", type=int, default=200)
    p.add_argument("--pause", type=float, default=60, help="seconds of the pause in (c)")
    p.add_argument("--outage", type=float, default=30, help="seconds the seats are cut off in (d)")
    p.add_argument("--start-timeout", type=float, default=180)
    p.add_argument("--keys", type=int, default=200, help="keys typed in (e); 0 skips (e)")
    p.add_argument("--forged", type=int, default=200000, help="made-up sessions in (f); 0 skips (f)")
    p.add_argument("--light", type=int, default=1000, help="light seats in (g); 0 skips (g)")
    p.add_argument("--light-seconds", type=float, default=60, help="how long the light seats run in (g)")
    p.add_argument("--light-every", type=float, default=5, help="seconds between a light seat's answers in (g)")
    p.add_argument("--sealed", action="store_true",
                   help="(a)-(d) with the test sealed: the seats wait with no passphrase and the start carries its key")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--perf-begin", metavar="FILE",
                   help="perf record (call graphs) of the seats' core during the room's start (a), into FILE")
    p.add_argument("--profile-store", action="store_true",
                   help="after (a) and (d), the statements that took PostgreSQL's time (pg_stat_statements)")
    p.add_argument("--per-seat", action="store_true",
                   help="what each seat costs in (a), (b), (d) and (h): PostgreSQL's processor time, statements, round trips,"
                        " bytes and the seat's own processor time, PostgreSQL pinned to core 0 and the rest to core 1;"
                        " adds (h), every seat answering")
    p.add_argument("--steady", type=float, default=20,
                   help="with --per-seat: seconds of the running seats at rest (the baseline) and of (h)")
    p.add_argument("--answer-every", type=float, default=1, help="with --per-seat: seconds between a seat's answers in (h)")
    args = p.parse_args()
    for path in (CARREL, DRIVER) + ((SIM,) if args.light > 0 else ()):
        if not os.access(path, os.X_OK):
            sys.exit(f"bench-room: {path} is missing; run scripts/bench-room (it builds it)")

    def stop(signum, _frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    run = Run(args)
    run.pinned = False
    if args.per_seat:
        if len(os.sched_getaffinity(0)) >= 2 and {0, 1} <= os.sched_getaffinity(0):
            # This harness, and every process it starts (seats, commands, psql), on core 1;
            # PostgreSQL is moved to core 0 once started.
            os.sched_setaffinity(0, {1})
            run.pinned = True
        else:
            say("--per-seat: fewer than two cores (0 and 1) to pin to; processor times are still per process")
    status = 2
    try:
        status = run.main()
    finally:
        run.cleanup()
    sys.exit(status)


if __name__ == "__main__":
    main()
