#!/usr/bin/env python3
"""Times the real `carrel` binary in a pseudo-terminal against `dialog` in the same run.

Called by scripts/bench (which builds the release binary and detaches from any terminal, so
that Carrel's multiplexer check does not take this script for a multiplexer). Figures:

- first frame: launch -> the whole start screen painted (its last line seen), 80x24;
- typing: a key -> its echo painted (the last byte of the answer), p50/p99 over many keys 50 ms apart (dialog --inputbox beside it);
- Tab: a key -> the next question painted (dialog: Tab -> focus moved), likewise;
- resize: the terminal grown back to 80x24 from too small -> the whole screen painted again (its
  footer seen), for a question of the test and for the demo, p50/p99 over many resizes, each
  at a random moment of the clock's second;
- idle: CPU time (from /proc/PID/task/*/schedstat, every thread, nanoseconds) and bytes written over a quiet spell;
- seats: many sessions of one large test at once: all on the start screen, then typing in one.

Every child runs with its own state directory under a temporary folder, removed afterwards.
"""
import argparse
import functools
import os
import pty
import random
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CARREL = os.environ.get("CARREL_BIN") or os.path.join(ROOT, ".build", "release", "carrel")
ESCAPES = re.compile(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78cDEHMZ])")


def plain(data):
    """The text a terminal would show, roughly: escapes removed, for finding markers."""
    return ESCAPES.sub(b"", data).decode("utf-8", "replace")


class Pane:
    """One program in a pseudo-terminal of a given size."""

    def __init__(self, argv, cols=80, rows=24, env=None):
        self.started = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                os.execvpe(argv[0], argv, env or os.environ)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        # Programs started later must not inherit this pane's master side: a seat holding
        # another seat's terminal is, to carrel, a multiplexer.
        os.set_inheritable(fd, False)
        self.buffer = b""

    def read_until(self, marker, timeout=20.0):
        """Seconds from now until `marker` shows in the output read since the last call."""
        start = time.monotonic()
        seen = b""
        while True:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                raise TimeoutError(f"no {marker!r} within {timeout} s; last output: {plain(seen[-400:])!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                raise TimeoutError(f"the program ended before {marker!r}; output: {plain(seen[-400:])!r}")
            seen += chunk
            if marker in plain(seen[-8192:]):
                return time.monotonic() - start

    def respond(self, data, timeout=5.0, quiet=0.03):
        """Writes `data`; the seconds until the last byte of the program's answer (its output
        until `quiet` passes with nothing more): the whole frame, not only its first byte."""
        self.drain()
        start = time.monotonic()
        os.write(self.fd, data)
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            raise TimeoutError(f"no answer to {data!r}")
        last = time.monotonic()
        os.read(self.fd, 65536)
        while select.select([self.fd], [], [], quiet)[0]:
            last = time.monotonic()
            try:
                os.read(self.fd, 65536)
            except OSError:
                break
        return last - start

    def send_until(self, data, marker, timeout=10.0):
        self.drain()
        start = time.monotonic()
        os.write(self.fd, data)
        self.read_until(marker, timeout)
        return time.monotonic() - start

    def drain(self, quiet=0.0, limit=None):
        """Reads whatever is pending (and, with `quiet`, until that long passes silently, or
        `limit` seconds in all: a clock that ticks every second is never quiet for long)."""
        total = 0
        end = time.monotonic() + (limit if limit is not None else max(quiet * 4, 2.0))
        while True:
            wait = min(quiet, max(0.0, end - time.monotonic()))
            if quiet and wait <= 0:
                return total
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                return total
            try:
                total += len(os.read(self.fd, 65536))
            except OSError:
                return total

    def set_size(self, cols, rows):
        """Resizes the terminal: the kernel sends the program SIGWINCH, as a terminal window does."""
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def thread_ns(self):
        """Each thread's CPU time (nanoseconds): the app loop runs on a thread of its own, and
        /proc/PID/schedstat counts the main thread alone."""
        times = {}
        for task in os.listdir(f"/proc/{self.pid}/task"):
            try:
                with open(f"/proc/{self.pid}/task/{task}/schedstat") as f:
                    times[task] = int(f.read().split()[0])
            except FileNotFoundError:
                pass  # a thread that ended between the listing and the read
        return times

    def settle(self, most=15.0):
        """Waits (reading what is written) until no thread has started or ended for a second:
        the launch's work in the background (the loaded-code check's run of the loader, the
        first save) is over. A thread that ended within a measured spell would take its time
        out of the sum."""
        deadline = time.monotonic() + most
        last = set(self.thread_ns())
        while time.monotonic() < deadline:
            self.drain(1.0, limit=1.0)
            now = set(self.thread_ns())
            if now == last:
                return
            last = now

    @staticmethod
    def cpu_between(before, after):
        """CPU seconds between two `thread_ns` readings: each thread's own difference, a thread
        started in between counted whole (one that ended in between is lost: `settle` first)."""
        return sum(ns - before.get(task, 0) for task, ns in after.items()) / 1e9

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        os.close(self.fd)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


class Bench:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="carrel-bench-")
        self.runs = 0
        self.env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", NO_COLOR="")
        self.env.pop("NO_COLOR")
        for name in ("TMUX", "STY", "LD_PRELOAD", "LC_ALL", "LC_MESSAGES"):
            self.env.pop(name, None)

    def assessment(self, count):
        if count == 0:
            return os.path.join(ROOT, "Assessments", "geography.yaml")
        draw = self.args.draw
        path = os.path.join(self.tmp, f"bench-{count}{f'-draw-{draw}' if draw else ''}.yaml")
        if not os.path.exists(path):
            extra = ["--draw", str(draw)] if draw else []
            subprocess.run([os.path.join(ROOT, "Benchmarks", "make-assessment"), str(count), path, *extra], check=True)
        return path

    # What each language's screens say where the benchmark waits: the start screen's help
    # key, the lock question and its yes key, the banner, the first question's header.
    WORDS = {
        "en": ("F1 help", "y/N", b"y", "Carrel", "Question 1 of"),
        "fr": ("F1 aide", "o/N", b"o", "Carrel", "Question 1 sur"),
        "de": ("F1 Hilfe", "j/N", b"j", "Carrel", "Frage 1 von"),
        "es": ("F1 ayuda", "s/N", b"s", "Carrel", "Pregunta 1 de"),
        "ja": ("F1 ヘルプ", "y/N", b"y", "Carrel", "問題 1"),
    }

    def words(self):
        return self.WORDS.get(self.args.language) or self.catalog_words(self.args.language)

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def catalog_words(code):
        """The same words for any language, read from its catalog in po/."""
        from importlib.machinery import SourceFileLoader
        check = SourceFileLoader("check_catalogs", os.path.join(ROOT, "scripts", "check-catalogs")).load_module()
        name = code.replace("-", "_") + ".po"
        table = {(e.get("ctx"), e["id"]): e.get("str", "") for e in check.parse(os.path.join(ROOT, "po", name))}
        help_word = table[("footer", "help")]
        yes = table[("key", "y")]
        header = table[(None, "Question {0} of {1}")].replace("{0}", "1").split("{1}")[0].strip()
        return (f"F1 {help_word}", f"{yes}/N", yes.encode(), "Carrel", header)

    def languages(self):
        """Launch -> start screen and typing p99 in every language, English first. The
        launches go round the languages, one each in turn, so that a busier moment of the
        machine falls on every language alike."""
        codes = ["en"] + sorted(f[:-3].replace("_", "-") for f in os.listdir(os.path.join(ROOT, "po")) if f.endswith(".po"))
        first = self.args.language
        launches = {code: [] for code in codes}
        # Each language's words are read before any launch: reading a catalog while Carrel
        # starts would count as Carrel's time.
        markers = {code: (self.WORDS.get(code) or self.catalog_words(code))[0] for code in codes}
        for _ in range(self.args.repeat):
            for code in codes:
                self.args.language = code
                pane = self.carrel(0)
                launches[code].append(pane.read_until(markers[code]))
                pane.close()
        rows = []
        english = statistics.median(launches["en"])
        for code in codes:
            self.args.language = code
            keys, _ = self.typing(16)
            median = statistics.median(launches[code])
            rows.append(f"{code:8} launch -> start screen median {ms(median)} ({(median - english) * 1000:+.2f} ms vs en), "
                        f"max {ms(max(launches[code]))}; typing p50 {ms(percentile(keys, 50))} p99 {ms(percentile(keys, 99))}")
        self.args.language = first
        return rows

    def carrel(self, count, extra=()):
        self.runs += 1
        state = os.path.join(self.tmp, f"state-{self.runs}")
        # English is the default (LANG=C.UTF-8 here): no option, so a Carrel from before
        # languages can be measured beside this one.
        language = [] if self.args.language == "en" else ["--language", self.args.language]
        return Pane([CARREL, "take", self.assessment(count), "--state-dir", state, "--candidate", "Bench",
                     *language, *extra], env=self.env)

    def carrel_in_question(self, count, extra=()):
        help_key, ask, yes, banner, header = self.words()
        pane = self.carrel(count, extra)
        pane.read_until(help_key)
        pane.send_until(b"\r", ask)
        pane.send_until(yes, banner)
        pane.send_until(b" ", header)
        pane.drain(0.3)
        return pane

    def first_frame(self, counts):
        rows = []
        for count in counts:
            carrel, dialog = [], []
            for _ in range(self.args.repeat):
                pane = self.carrel(count)
                carrel.append(pane.read_until(self.words()[0]))
                pane.close()
                if count == counts[0]:
                    pane = Pane(["dialog", "--msgbox", "Carrel benchmark: first frame", "10", "40"], env=self.env)
                    dialog.append(pane.read_until("OK"))
                    pane.close()
            label = "geography" if count == 0 else f"{count} items" + (f", draw {self.args.draw}" if self.args.draw else "")
            row = [f"launch -> start screen, {label}", ms(statistics.median(carrel)), ms(max(carrel))]
            if dialog:
                d = statistics.median(dialog)
                row += [f"dialog --msgbox {ms(d)}", f"{statistics.median(carrel) / d:.1f}x"]
            rows.append(row)
        return rows

    def typing(self, count):
        pane = self.carrel_in_question(count)
        keys = []
        for i in range(self.args.keys):
            keys.append(pane.respond(b"abcdefghij"[i % 10:i % 10 + 1]))
            time.sleep(0.05)
        tabs = []
        for i in range(min(self.args.tabs, max(1, (count or 8) - 1))):
            tabs.append(pane.respond(b"\t"))
            time.sleep(0.05)
        pane.close()
        return keys, tabs

    def dialog_typing(self):
        pane = Pane(["dialog", "--inputbox", "Type here", "10", "50"], env=self.env)
        pane.read_until("Cancel")
        pane.drain(0.2)
        keys = []
        for i in range(self.args.keys):
            keys.append(pane.respond(b"abcdefghij"[i % 10:i % 10 + 1]))
            time.sleep(0.05)
        tabs = []
        for _ in range(self.args.tabs):
            tabs.append(pane.respond(b"\t"))
            time.sleep(0.05)
        pane.close()
        return keys, tabs

    def resizes(self, pane, whole, small="enlarge"):
        """Seconds from growing the terminal back to 80x24 (from 60x20, where the screen asks for
        room) until the whole screen is painted again (`whole`, its last line, seen)."""
        times = []
        for _ in range(self.args.resizes):
            pane.set_size(60, 20)
            pane.read_until(small)
            # Any moment of the clock's second: a resize must not wait for the next tick.
            time.sleep(random.uniform(0.05, 1.0))
            pane.drain()
            start = time.monotonic()
            pane.set_size(80, 24)
            pane.read_until(whole, timeout=5.0)
            times.append(time.monotonic() - start)
        pane.close()
        return times

    def resize(self):
        help_key = self.words()[0]
        take = self.resizes(self.carrel_in_question(16), help_key)
        self.runs += 1
        state = os.path.join(self.tmp, f"state-{self.runs}")
        # The demo's footer (its last line) is in English whatever the language asked for.
        demo = Pane([CARREL, "demo", "--state-dir", state], env=self.env)
        demo.read_until("PgUp log")
        demo.drain(0.3)
        return take, self.resizes(demo, "PgUp log")

    def idle(self, count, extra=()):
        pane = self.carrel_in_question(count, extra)
        pane.drain(1.0, limit=2.0)
        pane.settle()
        before = pane.thread_ns()
        start = time.monotonic()
        written = pane.drain(self.args.idle, limit=self.args.idle)
        used = Pane.cpu_between(before, pane.thread_ns())
        elapsed = time.monotonic() - start
        pane.close()
        return used / elapsed * 100, written

    def seats(self, count, n):
        path = self.assessment(count)
        start = time.monotonic()
        panes = []
        for _ in range(n):
            panes.append(self.carrel(count))
        help_key, ask, yes, banner, header = self.words()
        for pane in panes:
            pane.read_until(help_key, timeout=120)
        all_started = time.monotonic() - start
        for pane in panes:
            pane.send_until(b"\r", ask, timeout=60)
            pane.send_until(yes, banner, timeout=60)
            pane.send_until(b" ", header, timeout=60)
        for pane in panes:
            pane.drain(0.0)
        first = panes[0]
        first.drain(0.5)
        keys = []
        for i in range(self.args.keys):
            for other in panes[1:]:
                other.drain(0.0)
            keys.append(first.respond(b"abcdefghij"[i % 10:i % 10 + 1]))
            time.sleep(0.05)
        tabs = []
        for i in range(min(self.args.tabs, count - 1)):
            tabs.append(first.respond(b"\t"))
            time.sleep(0.05)
        for pane in panes:
            pane.close()
        del path
        return all_started, keys, tabs

    def run(self):
        a = self.args
        print(f"carrel: {CARREL}; {os.cpu_count()} cores; language {a.language}; repeat {a.repeat}, {a.keys} keys, {a.tabs} Tabs")
        if "launch" in a.only:
            for row in self.first_frame([0] + a.sizes):
                print(" | ".join(row))
        if "keys" in a.only:
            dk, dt = self.dialog_typing()
            print(f"dialog --inputbox: typing p50 {ms(percentile(dk, 50))} p99 {ms(percentile(dk, 99))}; "
                  f"Tab p50 {ms(percentile(dt, 50))} p99 {ms(percentile(dt, 99))}")
            for count in [16] + a.sizes:
                k, t = self.typing(count)
                print(f"carrel {count} items: typing p50 {ms(percentile(k, 50))} p99 {ms(percentile(k, 99))} "
                      f"({percentile(k, 99) / percentile(dk, 99):.1f}x dialog); "
                      f"Tab p50 {ms(percentile(t, 50))} p99 {ms(percentile(t, 99))}")
        if "resize" in a.only:
            take, demo = self.resize()
            print(f"resize 60x20 -> 80x24, whole screen back: question p50 {ms(percentile(take, 50))} "
                  f"p99 {ms(percentile(take, 99))} max {ms(max(take))}; demo p50 {ms(percentile(demo, 50))} "
                  f"p99 {ms(percentile(demo, 99))} max {ms(max(demo))} ({a.resizes} resizes each)")
        if "idle" in a.only:
            for count in [16] + a.sizes:
                for extra in ((), ("--screen-reader",)):
                    cpu, written = self.idle(count, extra)
                    mode = " --screen-reader" if extra else ""
                    print(f"idle {count} items{mode}: {cpu:.3f} % of a core, {written} bytes written in {a.idle:.0f} s")
        if "languages" in a.only:
            for row in self.languages():
                print(row)
        if "seats" in a.only:
            started, k, t = self.seats(a.seat_items, a.seats)
            print(f"{a.seats} seats of {a.seat_items} items: all on the start screen in {started:.1f} s; "
                  f"typing in one p50 {ms(percentile(k, 50))} p99 {ms(percentile(k, 99))}; "
                  f"Tab p50 {ms(percentile(t, 50))} p99 {ms(percentile(t, 99))}")

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def arguments():
    """The options of this bench, with their defaults (bench_room reuses them for its typing part)."""
    parser = argparse.ArgumentParser(description="Times carrel in a pty against dialog.")
    parser.add_argument("--only", nargs="+", default=["launch", "keys", "resize", "idle"],
                        choices=["launch", "keys", "resize", "idle", "seats", "languages"],
                        help="which figures (seats is slow; languages: launch and typing in each of the catalogs)")
    parser.add_argument("--sizes", nargs="*", type=int, default=[5000, 15000], help="large test sizes")
    parser.add_argument("--repeat", type=int, default=15, help="launches per figure")
    parser.add_argument("--keys", type=int, default=200, help="keys typed per figure")
    parser.add_argument("--tabs", type=int, default=100, help="Tabs per figure")
    parser.add_argument("--resizes", type=int, default=40, help="resizes timed per screen")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle measurement")
    parser.add_argument("--seats", type=int, default=100)
    parser.add_argument("--seat-items", type=int, default=15000)
    parser.add_argument("--language", default="en",
                        help="the language of the screens (every figure is taken in it)")
    parser.add_argument("--draw", type=int, help="the large tests as one pool, each session drawing this many")
    return parser


def main():
    args = arguments().parse_args()
    if not os.access(CARREL, os.X_OK):
        sys.exit(f"bench: {CARREL} is missing; run scripts/bench (it builds it)")
    # dialog is the yardstick of the launch and key figures only.
    if shutil.which("dialog") is None and {"launch", "keys"} & set(args.only):
        sys.exit("bench: dialog is missing (apt-get install dialog)")
    bench = Bench(args)
    try:
        bench.run()
    finally:
        bench.cleanup()


if __name__ == "__main__":
    main()
