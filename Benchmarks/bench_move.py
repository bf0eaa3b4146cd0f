#!/usr/bin/env python3
"""The dead-machine drill (issue: a machine died): a seat's machine dies in the middle of a test
and the proctor moves its session to a spare seat. On a private PostgreSQL (loopback), release
build. Not part of the test suite; scripts/bench-move runs it.

- `carrel store init`, a room opened with `--start proctor --machines any` for geography.yaml
  with the bench proctor's key (and `policy: { multiplexer: allow }`: the spare runs in tmux);
- --seats seats (the headless session driver, one process each, its own state folder), started
  by `carrel proctor start --room`, each answering at a steady pace (--rate answers a second)
  and now and then toggling a flag, for the whole drill;
- seat A7 is killed with SIGKILL after --warmup seconds (its time used asked just before), its
  state folder copied aside (for the fence check) and deleted; the answers and flags the store
  acknowledged for its session are read as the store's owner;
- the spare: the real `carrel take` in tmux (80x24) as seat S1, waiting on its start screen;
  --gap seconds after the kill, `carrel proctor move --from A7 --to S1 --yes`. Measured: from the
  move to the spare's "locked" banner and (Enter pressed) its first question; answers and flags
  in the spare's journal against the store's (0 lost); the time the spare goes on from against
  the time used when A7 was killed (goal ±2 s: the minutes between the kill and the move are not
  counted), from the spare's first time record in the store, and the time left on its screen;
  everything within 60 s of the move;
- the revived old seat: `carrel resume` with the copy of A7's state folder must refuse with
  "continues at seat S1";
- one row for the session in `carrel results export --format csv`, its `moves` naming A7 → S1;
  one `moved` event in the spare's journal, naming the move; every proctor command applied once.
- With --outage N: PostgreSQL is stopped once the spare waits, the move asked while it is down
  (`carrel proctor move` run again every second until the store answers, as a proctor would),
  PostgreSQL started again N seconds later: the move applied once, nothing lost, and the time
  from the store's return to the spare running.
With --old-seat take, A7 is the real `carrel take` in tmux (answering question 1 by keys) instead
of a driver: the fence check then runs on a journal `carrel take` wrote.

Exits 1 when a goal is missed, 2 when the drill could not run. Every process started here (seats,
tmux server, PostgreSQL) is ended at the end, also on failure or SIGTERM/SIGINT, and the
temporary folder removed (unless --keep).
"""
import argparse
import csv
import io
import json
import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import bench_shared as shared  # noqa: E402  (Postgres, free_port, percentiles)
from bench_enrolled import PASSPHRASE, PROCTOR  # noqa: E402  (the bench proctor)

CARREL = os.path.realpath(shared.CARREL)
DRIVER = os.path.realpath(shared.DRIVER)
ROOM = "drill"
DEAD = "A7"
SPARE = "S1"
TMUX_SOCKET = f"carrel-bench-move-{os.getpid()}"
say = shared.say
BANNER = "This terminal is now locked to Carrel"
CLOCK = re.compile(r"⏱\s*(\d+):(\d\d)\s*left")


def tmux(*words):
    return subprocess.run(["tmux", "-L", TMUX_SOCKET, *words], capture_output=True, text=True)


def screen(target):
    return tmux("capture-pane", "-p", "-t", target).stdout


wait_for = shared.wait_for


class DrillFailed(Exception):
    pass


class Seat(threading.Thread):
    """One headless driver: every line it prints, with the time it was read."""

    def __init__(self, run, name):
        super().__init__(daemon=True)
        self.name = name
        self.state = os.path.join(run.tmp, "seats", name)
        os.makedirs(self.state, 0o700)
        self.lines = []
        self.session = None
        self.began = None
        self.acks = 0
        self.answers = 0
        self.lock = threading.Lock()
        # Each seat clears the tmux servers of its machine; here they share one machine, whose
        # server is the harness's: each looks in a folder of its own.
        env = dict(run.env, TMUX_TMPDIR=self.state + "-tmux")
        os.makedirs(env["TMUX_TMPDIR"], 0o700)
        self.errors = open(self.state + ".stderr", "wb")
        self.proc = subprocess.Popen(
            [DRIVER, "--state-dir", self.state, "--candidate", f"Candidate {name}", "--shared", run.url,
             "--room", ROOM, "--seat", name, "--follow", "--wait-start", "begin", run.test],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, env=env, text=True, bufsize=1)

    def run(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            now = time.monotonic()
            with self.lock:
                self.lines.append((now, time.time(), line))
            if line.startswith("waiting ") and self.session is None:
                self.session = line.split()[1]
            elif line.startswith("began "):
                self.began = now
            elif line.startswith("ack "):
                self.acks += 1

    def send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def answer(self):
        self.answers += 1
        k = self.answers
        if k % 2:
            self.send("answer largest " + json.dumps({"text": {"_0": f"{self.name} answer {k}"}}, separators=(",", ":")))
        else:
            self.send("answer continents " + json.dumps({"numeric": {"_0": str(k)}}, separators=(",", ":")))
        if k % 5 == 0:
            self.send("flag sizes")

    def line_after(self, prefix, since):
        with self.lock:
            for at, wall, line in self.lines:
                if at >= since and line.startswith(prefix):
                    return at, wall, line
        return None

    def alive(self):
        return self.proc.poll() is None

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


class TakeSeat:
    """A7 as the real `carrel take` in tmux (--old-seat take): it answers question 1 by keys."""

    def __init__(self, run, name):
        self.name = name
        self.state = os.path.join(run.tmp, "seats", name)
        os.makedirs(self.state, 0o700)
        self.session = None
        self.answers = 0
        self.window = f"seat-{name}"
        run.tmux_window(self.window, [CARREL, "take", run.test, "--candidate", f"Candidate {name}", "--shared", run.url,
                                      "--room", ROOM, "--seat", name, "--state-dir", self.state])

    def answer(self):
        self.answers += 1
        tmux("send-keys", "-t", self.window, "-l", "abcd"[self.answers % 4])

    def pid(self):
        out = tmux("display", "-p", "-t", self.window, "#{pane_pid}").stdout.strip()
        return int(out) if out.isdigit() else None

    def alive(self):
        pid = self.pid()
        return pid is not None and os.path.exists(f"/proc/{pid}")

    def kill(self):
        pid = self.pid()
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class Drill:
    def __init__(self, args):
        self.args = args
        self.tmp, self.pg, self.env = shared.workspace("carrel-bench-move-", args.port)
        self.seats = []
        self.stop_answering = threading.Event()
        self.figures = []     # (figure, value, goal, ok or None)
        self.problems = []
        self.tmux_started = False

    # -- helpers ---------------------------------------------------------------------------

    def figure(self, name, value, goal="", ok=None):
        self.figures.append((name, value, goal, ok))
        mark = "" if ok is None else ("  — goal met" if ok else "  — GOAL MISSED")
        say(f"  {name}: {value}" + (f" (goal {goal})" if goal else "") + mark)
        if ok is False:
            self.problems.append(f"{name}: {value} (goal {goal})")

    def carrel(self, *words, passphrase=False, timeout=120):
        r = subprocess.run([CARREL, *words, "--shared", self.url, *(("--passphrase-stdin",) if passphrase else ())],
                           input=(PASSPHRASE + "\n") if passphrase else "", capture_output=True, text=True,
                           env=self.env, timeout=timeout)
        return r.returncode, r.stdout, r.stderr

    def tmux_window(self, name, argv):
        # The seat's own shell line: PGPASSFILE and the locale given, nothing of the harness's.
        line = " ".join(shlex.quote(w) for w in argv)
        command = (f"cd {shlex.quote(self.tmp)} && exec env PGPASSFILE={shlex.quote(self.env['PGPASSFILE'])} "
                   f"LANG=C.UTF-8 TERM=xterm-256color {line}")
        r = tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", command)
        self.tmux_started = True
        if r.returncode != 0:
            raise DrillFailed(f"tmux new-session {name}: {r.stderr.strip()}")
        tmux("set-option", "-t", name, "remain-on-exit", "on")

    def answering(self):
        """Each live seat answers once per period, spread over it, until the drill ends."""
        period = 1.0 / self.args.rate
        start = time.monotonic()
        j = 0
        while not self.stop_answering.is_set():
            live = [s for s in self.seats if not getattr(s, "dead", False)]
            for i, seat in enumerate(live):
                wait = start + j * period + i * period / max(1, len(live)) - time.monotonic()
                if wait > 0 and self.stop_answering.wait(wait):
                    return
                if not getattr(seat, "dead", False):
                    seat.answer()
            j += 1

    def session_answers(self, session):
        rows = self.pg.json(f"""SELECT coalesce(json_object_agg(item, response), '{{}}') FROM carrel_answers
                                WHERE session = '{session}' AND answered""")
        records = int(self.pg.psql(f"SELECT count(*) FROM carrel_records WHERE session = '{session}' AND kind = 'answer'").strip())
        flags = set(self.pg.json(f"SELECT coalesce(json_agg(item), '[]') FROM carrel_flags WHERE session = '{session}'"))
        last = int(self.pg.psql(f"SELECT coalesce(max(seq), 0) FROM carrel_records WHERE session = '{session}'").strip())
        return rows, records, flags, last

    # -- the drill -------------------------------------------------------------------------

    def setup(self):
        a = self.args
        os.environ["CARREL_PG_MAX_CONNECTIONS"] = str(max(300, a.seats + 100))
        self.url = self.pg.start()
        say(f"PostgreSQL: {self.url} (private cluster in {self.pg.folder})")
        code, out, err = self.carrel("store", "init")
        if code != 0:
            raise DrillFailed(f"store init: {out}{err}")
        say("  " + out.strip().splitlines()[0])
        # geography.yaml with the bench proctor's key; tmux allowed (the spare runs in tmux).
        with open(shared.ASSESSMENT, encoding="utf-8") as f:
            text = f.read()
        self.test = os.path.join(self.tmp, "drill.yaml")
        with open(self.test, "w", encoding="utf-8") as f:
            f.write(text.replace("\nsections:", "\npolicy: { multiplexer: allow }\n" + PROCTOR + "sections:", 1))
        os.chmod(self.test, 0o644)
        code, out, err = self.carrel("room", "open", ROOM, self.test, "--start", "proctor", "--machines", "any")
        if code != 0:
            raise DrillFailed(f"room open: {out}{err}")
        say("  " + out.strip())

    def start_seats(self):
        a = self.args
        names = [f"A{i + 1}" for i in range(max(a.seats, 7))]
        say(f"\n{len(names)} seats wait in room {ROOM!r} (seat {DEAD} "
            + ("the real `carrel take` in tmux" if a.old_seat == "take" else "a driver like the others") + ") …")
        t = time.monotonic()
        for name in names:
            if name == DEAD and a.old_seat == "take":
                seat = TakeSeat(self, name)
            else:
                seat = Seat(self, name)
                seat.start()
            self.seats.append(seat)
        self.dead = next(s for s in self.seats if s.name == DEAD)
        drivers = [s for s in self.seats if isinstance(s, Seat)]
        if not wait_for(lambda: all(s.session for s in drivers), 60):
            raise DrillFailed("not every seat waited: " + ", ".join(f"{s.name}: {s.lines[-2:]}" for s in drivers if not s.session))
        if a.old_seat == "take" and not wait_for(lambda: "Waiting for the proctor" in screen(self.dead.window), 30):
            raise DrillFailed(f"{DEAD} (carrel take) did not wait:\n{screen(self.dead.window)}")
        # The proctor starts the seats the store lists: every one must be there first.
        want = {s.session for s in drivers}

        def listed():
            try:
                return want <= set(self.pg.json(f"SELECT coalesce(json_agg(session), '[]') FROM carrel_sessions WHERE room = '{ROOM}'"))
            except RuntimeError:
                return False
        if not wait_for(listed, 60, poll=0.2):
            raise DrillFailed("not every waiting seat reached the store within 60 s")
        say(f"  all waiting (and in the store) in {time.monotonic() - t:.1f} s")
        t = time.monotonic()
        code, out, err = self.carrel("proctor", "start", "--room", ROOM, "--yes", "--wait", "30", passphrase=True)
        say(f"  `carrel proctor start --room {ROOM} --yes`: exit {code}; {out.strip().splitlines()[-1] if out.strip() else err.strip()}")
        if code != 0:
            raise DrillFailed(f"proctor start: {out}{err}")
        if not wait_for(lambda: all(s.began for s in drivers), 60):
            raise DrillFailed("not every seat began: " + ", ".join(s.name for s in drivers if not s.began))
        if a.old_seat == "take":
            if not wait_for(lambda: BANNER in screen(self.dead.window), 30):
                raise DrillFailed(f"{DEAD} did not begin:\n{screen(self.dead.window)}")
            tmux("send-keys", "-t", self.dead.window, "Enter")
            if not wait_for(lambda: "Question" in screen(self.dead.window), 10):
                raise DrillFailed(f"{DEAD} shows no question:\n{screen(self.dead.window)}")
            self.dead.session = self.pg.psql(f"SELECT session FROM carrel_sessions WHERE room = '{ROOM}' AND seat = '{DEAD}'").strip()
        say(f"  all began {time.monotonic() - t:.1f} s after the start")
        self.answerer = threading.Thread(target=self.answering, daemon=True)
        self.answerer.start()

    def kill_dead_seat(self):
        a = self.args
        say(f"\nanswering at {a.rate:g} answer/s a seat for {a.warmup:g} s, then {DEAD} dies …")
        time.sleep(a.warmup)
        seat = self.dead
        allowed = float(self.pg.psql(f"SELECT time_allowed_seconds FROM carrel_sessions WHERE session = '{seat.session}'").strip())
        if isinstance(seat, Seat):
            asked = time.monotonic()
            seat.send("state")
            got = wait_for(lambda: seat.line_after("state ", asked), 5, poll=0.001)
            seat.kill()
            self.kill_wall = time.time()
            kill_mono = time.monotonic()
            if not got:
                raise DrillFailed(f"{DEAD} did not say its state before the kill")
            fields = dict(f.split("=", 1) for f in got[2].split()[1:] if "=" in f)
            self.elapsed_at_kill = float(fields["seconds"]) + (kill_mono - got[0])
            how = "the driver's `state` just before the kill"
            acked = seat.acks
        else:
            seat.kill()
            self.kill_wall = time.time()
            began = float(self.pg.psql(f"""SELECT extract(epoch FROM at) FROM carrel_records WHERE session = '{seat.session}'
                                          AND kind = 'event' AND body->>'kind' = 'began' ORDER BY seq LIMIT 1""").strip())
            self.elapsed_at_kill = self.kill_wall - began
            how = "the kill minus the session's `began` record"
            acked = None
        seat.dead = True
        self.left_at_kill = allowed - self.elapsed_at_kill
        # The machine is gone: its journal with it (a copy kept for the fence check only).
        self.copy = os.path.join(self.tmp, "A7-revived")
        time.sleep(0.2)
        shutil.copytree(seat.state, self.copy, symlinks=True)
        shutil.rmtree(seat.state)
        time.sleep(1)
        self.acked, self.acked_records, self.acked_flags, self.last_seq = self.session_answers(seat.session)
        say(f"  {DEAD} killed (SIGKILL), its state folder deleted; session {seat.session[:8]}: time used {self.elapsed_at_kill:.2f} s "
            f"({how}), {self.left_at_kill:.2f} s left of {allowed:g}")
        say(f"  the store acknowledged {self.acked_records} answer records of it ({len(self.acked)} items answered: "
            f"{', '.join(sorted(self.acked))}), flags {sorted(self.acked_flags) or 'none'}, records up to seq {self.last_seq}"
            + (f"; the seat had {acked} acks of its own commits" if acked is not None else ""))
        if not self.acked:
            self.problems.append(f"the store held no answer of {DEAD}: nothing to check")

    def start_spare(self):
        self.spare_state = os.path.join(self.tmp, "spare-S1")
        os.makedirs(self.spare_state, 0o700)
        self.tmux_window("spare", [CARREL, "take", self.test, "--shared", self.url, "--room", ROOM, "--seat", SPARE,
                                   "--state-dir", self.spare_state])
        t = time.monotonic()
        if not wait_for(lambda: "Waiting for the proctor" in screen("spare"), 30):
            raise DrillFailed("the spare did not wait for the proctor:\n" + screen("spare"))
        say(f"\nthe spare: `carrel take --room {ROOM} --seat {SPARE}` in tmux (80x24) waits for the proctor "
            f"({time.monotonic() - t:.1f} s after its launch)")

    def move(self):
        """The move (retried while the store is down, with --outage); the spare followed."""
        a = self.args
        self.attempts = []
        move_argv = ["proctor", "move", "--room", ROOM, "--from", DEAD, "--to", SPARE, "--yes", "--wait", "60"]
        self.store_back = None
        done = threading.Event()

        def attempts():
            while not done.is_set():
                t = time.monotonic()
                try:
                    code, out, err = self.carrel(*move_argv, passphrase=True, timeout=120)
                except subprocess.TimeoutExpired:
                    code, out, err = None, "", "timed out after 120 s"
                self.attempts.append((t, time.monotonic(), code, (out + err).strip()))
                # Sent: never sent again (the spare picks it up when it reads the store).
                if code == 0 or "the move was sent" in out + err:
                    break
                if time.monotonic() - self.move_start > a.outage + 120:
                    break
                time.sleep(1)
            done.set()

        if a.outage > 0:
            say(f"\nPostgreSQL stopped for {a.outage:g} s; the move asked meanwhile, again every second until the store answers")
            self.pg.stop()
            self.down_mono = time.monotonic()
        else:
            wait = self.kill_wall + a.gap - time.time()
            if wait > 0:
                time.sleep(wait)
            say(f"\n`carrel proctor move --room {ROOM} --from {DEAD} --to {SPARE} --yes` {time.time() - self.kill_wall:.1f} s after the kill")
        self.move_start = time.monotonic()
        self.move_wall = time.time()
        worker = threading.Thread(target=attempts, daemon=True)
        worker.start()
        restarter = None
        if a.outage > 0:
            def restart():
                time.sleep(max(0, self.down_mono + a.outage - time.monotonic()))
                t = time.monotonic()
                self.pg.start()
                self.store_back = (t, time.monotonic())
            restarter = threading.Thread(target=restart, daemon=True)
            restarter.start()
        limit = a.outage + 90
        banner = wait_for(lambda: BANNER in screen("spare"), limit, poll=0.02)
        self.banner_at = time.monotonic() if banner else None
        self.question_at = None
        if banner:
            tmux("send-keys", "-t", "spare", "Enter")
            self.enter_at = time.monotonic()
            if wait_for(lambda: "Question" in screen("spare"), 30, poll=0.02):
                self.question_at = time.monotonic()
                self.question_screen = screen("spare")
                self.question_wall = time.time()
        if restarter:
            restarter.join(timeout=60)
        worker.join(timeout=150)
        done.set()
        if not banner:
            say("  the spare's screen:\n" + screen("spare"))

    def report_move(self):
        a = self.args
        for i, (t, end, code, out) in enumerate(self.attempts[:3] + (self.attempts[3:][-2:] if len(self.attempts) > 3 else [])):
            say(f"  move attempt at +{t - self.move_start:.1f} s: exit {code}, {end - t:.1f} s: " + " | ".join(out.splitlines()[:4]))
        ok_attempts = [x for x in self.attempts if x[2] == 0]
        self.figure("move attempts (exit 0 / all)", f"{len(ok_attempts)} / {len(self.attempts)}", "the move completes", bool(ok_attempts))
        if self.banner_at:
            self.figure("move command → spare locked banner", f"{self.banner_at - self.move_start:.2f} s")
        else:
            self.figure("move command → spare locked banner", "NEVER", f"within {a.outage + 90:g} s", False)
        whole = (self.question_at - self.move_start) if self.question_at else None
        self.figure("move command → spare shows the question (Enter at the banner)",
                    f"{whole:.2f} s" if whole is not None else "NEVER", "≤ 60 s" if a.outage == 0 else "",
                    (whole is not None and whole <= 60) if a.outage == 0 else (whole is not None))
        if a.outage > 0 and self.store_back:
            started, returned = self.store_back
            say(f"  PostgreSQL down {started - self.down_mono:.1f} s; `pg_ctl start` took {returned - started:.1f} s")
            if self.banner_at:
                self.figure("store back (pg_ctl start returned) → spare running (banner)", f"{self.banner_at - returned:.2f} s",
                            "the move completes once the store is back", True)
                self.figure("store back → spare shows the question", f"{self.question_at - returned:.2f} s" if self.question_at else "NEVER")

    def check_clock(self):
        """The time the spare goes on from, against the time used when A7 was killed."""
        session = self.dead.session
        rows = None
        if wait_for(lambda: self._has_progress(session), 30, poll=0.5):
            rows = self.pg.json(f"""
                SELECT coalesce(json_agg(json_build_array(kind, extract(epoch FROM at)::float8, body) ORDER BY seq), '[]')
                FROM carrel_records WHERE session = '{session}' AND seq > {self.last_seq} AND kind IN ('resumed', 'progress')""")
        if not rows:
            self.figure("time used at the spare's start vs at the kill", "no time record from the spare within 30 s", "±2 s", False)
            return
        resumed = next((r for r in rows if r[0] == "resumed"), None)
        progress = next((r for r in rows if r[0] == "progress" and (resumed is None or r[1] >= resumed[1])), None)
        if not resumed or not progress:
            self.figure("time used at the spare's start vs at the kill", f"records {[r[0] for r in rows]}", "±2 s", False)
            return
        at_start = progress[2]["elapsed"] - (progress[1] - resumed[1])
        diff = at_start - self.elapsed_at_kill
        self.figure("time used: spare's start vs the moment A7 was killed",
                    f"{at_start:.2f} s vs {self.elapsed_at_kill:.2f} s: {diff:+.2f} s"
                    f" ({'counted more' if diff > 0 else 'given back'}; kill → spare's start {resumed[1] - self.kill_wall:.1f} s not counted)",
                    "±2 s", abs(diff) <= 2)
        self.clock_diff = diff
        m = CLOCK.search(getattr(self, "question_screen", "") or "")
        if m:
            shown = int(m.group(1)) * 60 + int(m.group(2))
            expected = self.left_at_kill - (self.question_wall - resumed[1])
            self.figure("time left on the spare's screen vs expected (left at the kill less the spare's own run)",
                        f"{m.group(1)}:{m.group(2)} shown, {expected:.1f} s expected: {shown - expected:+.1f} s",
                        "±2 s (the screen shows whole seconds)", abs(shown - expected) <= 2.5)
        else:
            self.figure("time left on the spare's screen", "no clock on the screen", "", False)

    def _has_progress(self, session):
        try:
            return int(self.pg.psql(f"SELECT count(*) FROM carrel_records WHERE session = '{session}' AND seq > {self.last_seq} "
                                    f"AND kind = 'progress'").strip()) > 0
        except RuntimeError:
            return False

    def check_journal(self):
        session = self.dead.session
        path = os.path.join(self.spare_state, "journal.sqlite")
        if not os.path.exists(path):
            self.figure("spare's journal", f"no {path}", "", False)
            return
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            answers = {item: json.loads(resp) for item, resp in
                       db.execute("SELECT item_id, response FROM answer WHERE session_id = ? AND response IS NOT NULL", (session,))}
            history = db.execute("SELECT count(*) FROM answer_history WHERE session_id = ?", (session,)).fetchone()[0]
            flags = {r[0] for r in db.execute("SELECT item_id FROM flag WHERE session_id = ?", (session,))}
            events = db.execute("SELECT kind, detail FROM event WHERE session_id = ? ORDER BY id", (session,)).fetchall()
            status = db.execute("SELECT status, candidate FROM session WHERE id = ?", (session,)).fetchone()
        finally:
            db.close()
        lost = sorted(i for i, r in self.acked.items() if answers.get(i) != r)
        self.figure("answers the store acknowledged, missing or different in the spare's journal",
                    f"{len(lost)} of {len(self.acked)} items" + (f": {lost}" if lost else ""), "0 lost", not lost and bool(self.acked))
        say(f"    (the store held {self.acked_records} answer records of the session, the spare's answer_history {history} rows: "
            f"a moved session keeps each item's latest answer)")
        self.figure("flags: store at the kill vs spare's journal", f"{sorted(self.acked_flags)} vs {sorted(flags)}", "equal",
                    self.acked_flags == flags)
        say(f"    spare's journal: session status {status[0] if status else '?'}, candidate {status[1] if status else '?'}")
        moved = [d for k, d in events if k == "moved"]
        self.figure("`moved` events in the spare's journal", f"{len(moved)}: {moved}", f"one, naming {DEAD} → {SPARE}",
                    len(moved) == 1 and f"from {DEAD} to {SPARE}" in moved[0])
        commands = [d for k, d in events if k == "proctor_command"]
        ids = [d.split()[0] for d in commands]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        self.figure("proctor commands in the spare's journal (each once)", f"{len(commands)} ({', '.join(commands)}); twice: {twice or 'none'}",
                    "none twice", not twice)
        moves = self.pg.json(f"SELECT moves FROM carrel_sessions WHERE session = '{session}'") or []
        issued = int(self.pg.psql(f"SELECT count(*) FROM carrel_commands WHERE room = '{ROOM}' AND move_from IS NOT NULL").strip())
        self.figure("moves the store recorded / move commands issued", f"{len(moves)} / {issued}", "1 / 1", len(moves) == 1 and issued == 1)

    def check_fence(self):
        say(f"\nthe revived old seat: `carrel resume --state-dir COPY-OF-A7` (its journal as it was at the kill)")
        out_path = os.path.join(self.tmp, "resume.out")
        with open(out_path, "wb") as out:
            try:
                r = subprocess.run([CARREL, "resume", "--shared", self.url, "--state-dir", self.copy],
                                   input=(PASSPHRASE + "\n").encode(), stdout=out, stderr=subprocess.STDOUT, env=self.env, timeout=60)
                code = r.returncode
            except subprocess.TimeoutExpired:
                code = "timeout"
        with open(out_path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        plain = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]|\x1b[()][A-Z0-9]|\x1b[=>]", " ", text)
        refused = f"continues at seat {SPARE}" in plain
        said = [line.strip() for line in plain.splitlines() if line.strip().startswith("carrel:")]
        extra = ""
        if not refused and "Session resumed" in plain:
            extra = " — IT RESUMED THE SESSION (showed 'Session resumed')"
        self.figure("revived old seat's `carrel resume`", f"exit {code}: {' | '.join(said) or plain.strip()[:300]}{extra}",
                    f"refuses: \"continues at seat {SPARE}\"", refused)
        if not refused:
            db = sqlite3.connect(f"file:{os.path.join(self.copy, 'journal.sqlite')}?mode=ro", uri=True)
            token = json.loads(db.execute("SELECT options FROM session WHERE id = ?", (self.dead.session,)).fetchone()[0]).get(
                "shared", {}).get("storeToken")
            db.close()
            row = self.pg.psql(f"""SELECT carrel_token_hash('{token}') = hello_hash, carrel_token_hash('{token}') = ANY(fenced_hashes), fate
                                   FROM carrel_sessions WHERE session = '{self.dead.session}'""").strip()
            say(f"    the old journal's storeToken against the store: equals hello_hash | among fenced_hashes | fate = {row}")

    def check_export(self):
        code, out, err = self.carrel("results", "export", "--format", "csv", "--room", ROOM, passphrase=True)
        if code != 0:
            self.figure("results export", f"exit {code}: {err.strip()[:300]}", "", False)
            return
        rows = list(csv.DictReader(io.StringIO(out)))
        mine = [r for r in rows if r["session"] == self.dead.session]
        named = [r for r in rows if r["candidate"] == f"Candidate {DEAD}"]
        moves = mine[0]["moves"] if mine else ""
        self.figure("rows in `results export --format csv` for the session / for the candidate",
                    f"{len(mine)} / {len(named)} of {len(rows)} rows; seat {mine[0]['seat'] if mine else '-'}, status "
                    f"{mine[0]['status'] if mine else '-'}, verified {mine[0]['verified'] if mine else '-'}, moves \"{moves}\"",
                    f"one row, moves {DEAD} → {SPARE}", len(mine) == 1 and len(named) == 1 and f"{DEAD} → {SPARE}" in moves)

    def check_others(self):
        others = [s for s in self.seats if s is not self.dead and isinstance(s, Seat)]
        dead = [s.name for s in others if not s.alive()]
        acks = sum(s.acks for s in others)
        self.figure("other seats still running / answers they committed", f"{len(others) - len(dead)} of {len(others)} / {acks}",
                    "all running", not dead)

    def main(self):
        a = self.args
        say(f"carrel: {CARREL}\ndriver: {DRIVER}\n{os.cpu_count()} cores; load average " +
            ", ".join(f"{x:.2f}" for x in os.getloadavg()) +
            f"; {a.seats} seats, {a.rate:g} answer/s each, kill after {a.warmup:g} s, move {a.gap:g} s after the kill"
            + (f", store down {a.outage:g} s during the move" if a.outage else ""))
        self.setup()
        self.start_seats()
        self.kill_dead_seat()
        self.start_spare()
        self.move()
        say("\nfigures:")
        self.report_move()
        if self.banner_at:
            self.check_clock()
            # What the spare writes reaches its journal at once; give the store a moment too.
            time.sleep(1)
            self.check_journal()
            self.check_fence()
            self.check_export()
        self.check_others()
        self.summary()
        return 1 if self.problems else 0

    def summary(self):
        a = self.args
        say(f"\nsummary ({'outage drill, store down ' + format(a.outage, 'g') + ' s' if a.outage else 'dead-machine drill'}; "
            f"{a.seats} seats; old seat: {a.old_seat}):")
        width = max(len(f[0]) for f in self.figures) if self.figures else 10
        for name, value, goal, ok in self.figures:
            flag = "    " if ok is None else ("ok  " if ok else "MISS")
            short = value if len(value) <= 110 else value[:107] + "…"
            say(f"  {flag} {name:<{width}}  {short}" + (f"  [goal {goal}]" if goal else ""))
        if self.problems:
            say("GOALS MISSED:\n  " + "\n  ".join(p if len(p) < 400 else p[:400] + "…" for p in self.problems))
        else:
            say("every goal met")

    def cleanup(self):
        self.stop_answering.set()
        for s in self.seats:
            try:
                s.kill()
            except Exception:  # noqa: BLE001  (cleanup goes on)
                pass
        if self.tmux_started:
            tmux("kill-server")
            # The server's socket file, left behind by kill-server.
            socket_dir = os.path.join(os.environ.get("TMUX_TMPDIR") or "/tmp", f"tmux-{os.getuid()}")
            try:
                os.unlink(os.path.join(socket_dir, TMUX_SOCKET))
            except OSError:
                pass
        self.pg.cleanup()
        if self.args.keep:
            say(f"kept {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description="The dead-machine drill: a seat dies, its session moves to a spare.")
    p.add_argument("--seats", type=int, default=30, help="seats of the room (driver processes; A7 among them)")
    p.add_argument("--rate", type=float, default=1.0, help="answers per second per seat")
    p.add_argument("--warmup", type=float, default=15, help="seconds of answering before A7 dies")
    p.add_argument("--gap", type=float, default=20, help="seconds from the kill to the move")
    p.add_argument("--outage", type=float, default=0, help="seconds the store is down while the move is asked (0: none)")
    p.add_argument("--old-seat", choices=("driver", "take"), default="driver",
                   help="what A7 runs: the headless driver (default) or the real `carrel take` in tmux")
    p.add_argument("--port", type=int, default=0, help="PostgreSQL's port (default: a free one)")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (journals, PostgreSQL's log)")
    args = p.parse_args()
    for path in (CARREL, DRIVER):
        if not os.access(path, os.X_OK):
            sys.exit(f"bench-move: {path} is missing (scripts/bench-move builds it, or set CARREL_BIN / CARREL_DRIVER_BIN)")

    def stop(signum, _frame):
        say(f"\nbench-move: stopped by signal {signum}; ending the seats, tmux and PostgreSQL")
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    signal.signal(signal.SIGINT, stop)
    drill = Drill(args)
    status = 2
    try:
        status = drill.main()
    except DrillFailed as e:
        say(f"\nthe drill could not run: {e}")
        drill.summary()
    finally:
        drill.cleanup()
    sys.exit(status)


if __name__ == "__main__":
    main()
