#!/usr/bin/env python3
"""A room of enrolled lab machines started from the console with `*` `s` `y` (issue: a room
nobody can fool), on a private PostgreSQL (loopback), release build. Not part of the test
suite; scripts/bench-enrolled runs it, as root (enrolment is root's).

--seats N seats (the headless session driver, one process each) wait in a room opened with
`--start proctor --lab lab1` for a sealed test:
  - N-2 on machines enrolled with the real `carrel seat enroll` (each its own machine folder,
    CARREL_MACHINE_DIR, with its own machine key; the seat's announcement signed by the real
    `carrel-keysign` beside the driver),
  - one on a machine that is not enrolled,
  - one on an enrolled machine running another build (the driver with bytes appended).
The real console (`carrel proctor --room`, in tmux at 120x40) is given the passphrase, waits for
the N seats, and is sent `*` (mark every seat), `s` (start) and `y` (confirm), with no look at
any seat key. Measured: from the `y` to each enrolled seat's receipt of its keys and its
`began`; that the two others receive nothing and are shown held back; then each admitted one by
one (`carrel proctor admit --seat-key`, read from the store as the proctor reads it off the seat's
screen) and started (`carrel proctor start --seat`), from the admit to its keys.
"""
import argparse
import hashlib
import base64
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import bench_shared as shared  # noqa: E402  (Postgres, free_port, percentiles)

CARREL = os.path.realpath(shared.CARREL)
DRIVER = os.path.realpath(shared.DRIVER)
KEYSIGN = os.path.join(os.path.dirname(DRIVER), "carrel-keysign")
PASSPHRASE = "proctor phrase"
PROCTOR = ('proctor: {passphrase: "scrypt$ln=10,r=8,p=1$PilNsrVlqe1VmRGfsSMQ3A==$TfcMVSKeA9P1fLK3LHCjnNupqPmRdaATMnpz5K8ruiY=", '
           'key: "ed25519:NP6xnGmbUY40MGR7euraxIrLonTV2Dlj+jTG0v/GF4c=$ln=10,r=8,p=1$TwROBByWn5zlmHncA8mXSQ=="}\n')
ROOM = "e1"


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def seat_key_fingerprint(public_key):
    """The seat key as the seat shows it on its screen (SeatBox.fingerprint)."""
    raw = base64.b64decode(public_key)
    digest = hashlib.sha256(raw).hexdigest()[:16]
    return "-".join(digest[i:i + 4] for i in range(0, 16, 4))


class Seat(threading.Thread):
    """One driver; every line it prints, with the time it was read."""

    def __init__(self, name, program, sealed, url, env, state):
        super().__init__(daemon=True)
        self.name = name
        self.lines = []
        self.session = None
        args = [program, "begin", sealed, "--shared", url, "--room", ROOM, "--seat", name, "--follow", "--wait-start",
                "--state-dir", state]
        if env.get("CARREL_MACHINE_DIR"):
            args.append("--machine-seal")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env=env, text=True, bufsize=1)

    def run(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            self.lines.append((time.monotonic(), line))
            if line.startswith("waiting ") and self.session is None:
                self.session = line.split()[1]

    def first(self, prefix):
        for at, line in list(self.lines):
            if line.startswith(prefix):
                return at
        return None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def tmux(*words):
    return subprocess.run(["tmux", "-L", "carrel-bench-enrolled", *words], capture_output=True, text=True)


def screen():
    return tmux("capture-pane", "-p", "-t", "console").stdout


wait_for = shared.wait_for


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seats", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    if os.geteuid() != 0:
        shared.say("bench-enrolled: enrolment is root's; run it as root")
        return 69
    for path in (CARREL, DRIVER, KEYSIGN):
        if not os.access(path, os.X_OK):
            shared.say(f"bench-enrolled: {path} is missing (scripts/bench-enrolled builds it)")
            return 69
    n = max(args.seats, 3)
    tmp = tempfile.mkdtemp(prefix="carrel-bench-enrolled-")
    os.chmod(tmp, 0o755)
    pg = shared.Postgres(os.path.join(tmp, "pg"), shared.free_port())
    seats = []
    ok = True
    try:
        url = pg.start()
        env = dict(pg.env)
        # The seat and proctor roles; each enrolled machine gets a login of its own under them.
        subprocess.run([CARREL, "store", "init", "--shared", url], env=env, check=True, capture_output=True)
        # The sealed test: geography with the bench proctor's key.
        plain = os.path.join(tmp, "test.yaml")
        with open(shared.ASSESSMENT, encoding="utf-8") as f:
            text = f.read()
        with open(plain, "w", encoding="utf-8") as f:
            f.write(text.replace("\nsections:", "\n" + PROCTOR + "sections:", 1))
        sealed = os.path.join(tmp, "test.carrel")
        subprocess.run([CARREL, "seal", plain, "--out", sealed], input=PASSPHRASE + "\n" + PASSPHRASE + "\n", text=True,
                       env=env, check=True, capture_output=True)
        os.chmod(sealed, 0o644)
        # Another build of the seat's program, with its helper beside it.
        other_dir = os.path.join(tmp, "other")
        os.mkdir(other_dir, 0o755)
        other = os.path.join(other_dir, os.path.basename(DRIVER))
        shutil.copyfile(DRIVER, other)
        with open(other, "ab") as f:
            f.write(b"another build")
        os.chmod(other, 0o755)
        shutil.copyfile(KEYSIGN, os.path.join(other_dir, "carrel-keysign"))
        os.chmod(os.path.join(other_dir, "carrel-keysign"), 0o755)
        # Enrolment: one machine folder and key per enrolled seat.
        started = time.monotonic()
        machines = []
        for i in range(n - 1):
            folder = os.path.join(tmp, f"machine-{i:02d}")
            os.mkdir(folder, 0o755)
            menv = dict(env, CARREL_MACHINE_DIR=folder)
            r = subprocess.run([CARREL, "seat", "enroll", "--shared", url, "--lab", "lab1", "--machine", f"pc{i:02d}"],
                               env=menv, capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"seat enroll: {r.stdout}{r.stderr}")
            program = other if i == n - 2 else DRIVER
            conf = os.path.join(folder, "machine.conf")
            with open(conf, encoding="utf-8") as f:
                lines = f.read().splitlines()
            lines = [("carrel=" + program) if l.startswith("carrel=") else ("digest=" + sha256(program)) if l.startswith("digest=") else l
                     for l in lines]
            with open(conf, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            os.chmod(conf, 0o644)
            machines.append((folder, program))
        enrol_seconds = time.monotonic() - started
        r = subprocess.run([CARREL, "room", "open", ROOM, sealed, "--start", "proctor", "--lab", "lab1", "--shared", url],
                           env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"room open: {r.stdout}{r.stderr}")
        # The room's Carrel is the seat program the bench runs.
        pg.psql(f"UPDATE carrel_rooms SET carrel_digest = 'sha256:{sha256(DRIVER)}' WHERE room = '{ROOM}'")

        for i in range(n):
            name = f"S{i + 1:02d}"
            state = os.path.join(tmp, "state", name)
            os.makedirs(state, 0o700)
            senv = dict(env)
            if i < n - 1:
                folder, program = machines[i]
                senv["CARREL_MACHINE_DIR"] = folder
            else:
                program = DRIVER   # the machine that is not enrolled
            seat = Seat(name, program, sealed, url, senv, state)
            seat.start()
            seats.append(seat)
        if not wait_for(lambda: all(s.session for s in seats), 120):
            raise RuntimeError("not every seat announced itself: " +
                               ", ".join(f"{s.name}: {s.lines[-3:]}" for s in seats if not s.session))
        enrolled = seats[:n - 2]
        held = seats[n - 2:]

        tmux("kill-server")
        console = f"cd {tmp} && PGPASSFILE={pg.env['PGPASSFILE']} exec {CARREL} proctor --room {ROOM} --shared '{url}' --language en"
        tmux("new-session", "-d", "-s", "console", "-x", "120", "-y", "40", console)
        if not wait_for(lambda: "passphrase" in screen().lower(), 30):
            raise RuntimeError("the console did not ask for the passphrase:\n" + screen())
        tmux("send-keys", "-t", "console", "-l", PASSPHRASE)
        tmux("send-keys", "-t", "console", "Enter")
        if not wait_for(lambda: f"{n} not started" in screen() or f"{n} waiting" in screen(), 60):
            raise RuntimeError("the console did not show every seat:\n" + screen())
        tmux("send-keys", "-t", "console", "-l", "*")
        time.sleep(0.3)
        tmux("send-keys", "-t", "console", "-l", "s")
        if not wait_for(lambda: "y/N" in screen(), 10):
            raise RuntimeError("no confirmation asked:\n" + screen())
        asked = screen()
        pressed = time.monotonic()
        tmux("send-keys", "-t", "console", "-l", "y")
        wait_for(lambda: all(s.first("began ") for s in enrolled), 60, poll=0.01)
        keys = [s.first("keys session+package") for s in enrolled]
        began = [s.first("began ") for s in enrolled]
        got = [k - pressed for k in keys if k is not None]
        went = [b - pressed for b in began if b is not None]
        time.sleep(3)
        after = screen()
        shared.say(f"Room of {n} seats: {n - 2} on enrolled machines, 1 not enrolled, 1 running another build.")
        shared.say(f"  enrolment of {n - 1} machines: {enrol_seconds:.1f} s ({enrol_seconds / (n - 1) * 1000:.0f} ms each)")
        confirm = next((line.strip() for line in asked.splitlines() if "y/N" in line), "?")
        shared.say(f"  the console asked: {confirm}")
        shared.say(f"  * s y → keys at each enrolled seat: {len(got)} of {n - 2}; p50 {shared.ms(shared.pct(got, 50))}, "
                   f"p99 {shared.ms(shared.pct(got, 99))}, last {shared.ms(max(got) if got else float('nan'))}")
        shared.say(f"  * s y → began at each enrolled seat: {len(went)} of {n - 2}; p50 {shared.ms(shared.pct(went, 50))}, "
                   f"last {shared.ms(max(went) if went else float('nan'))}")
        ok &= len(got) == n - 2 and len(went) == n - 2
        for s in enrolled:
            if s.first("began ") is None:
                shared.say(f"  {s.name} did not begin: " + " | ".join(line for _, line in s.lines[-4:]))
        for s in held:
            nothing = s.first("keys ") is None and s.first("began ") is None
            ok &= nothing
            shared.say(f"  {s.name} ({'not enrolled' if s is held[-1] else 'another build'}): "
                       f"{'no keys, held back' if nothing else 'STARTED'}")
        shown = [line.strip() for line in after.splitlines() if "held back" in line]
        shared.say(f"  the console says: {shown[0] if shown else '(no held-back line)'}")
        ok &= bool(shown)
        tmux("send-keys", "-t", "console", "-l", "q")
        for s in held:
            key = pg.psql(f"SELECT seat_key FROM carrel_sessions WHERE session = '{s.session}'").strip()
            admit_at = time.monotonic()
            r = subprocess.run([CARREL, "proctor", "admit", "--room", ROOM, "--seat", s.name, "--seat-key",
                                seat_key_fingerprint(key), "--shared", url], env=env, capture_output=True, text=True)
            r2 = subprocess.run([CARREL, "proctor", "start", "--room", ROOM, "--seat", s.name, "--yes", "--wait", "20",
                                 "--passphrase-stdin", "--shared", url], input=PASSPHRASE + "\n", env=env,
                                capture_output=True, text=True)
            k = wait_for(lambda: s.first("keys session+package"), 30)
            ok &= r.returncode == 0 and r2.returncode == 0 and k is not None
            shared.say(f"  {s.name} admitted by its seat key and started: admit {r.returncode}, start {r2.returncode}, "
                       f"keys {shared.ms(k - admit_at) if k else 'never'} after the admit")
        shared.say("  " + shared.verdict(ok))
    finally:
        tmux("kill-server")
        for s in seats:
            s.stop()
        pg.cleanup()
        if args.keep:
            shared.say(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
