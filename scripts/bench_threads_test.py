#!/usr/bin/python3
"""Tests scripts/bench_threads' bookkeeping, not a measurement: its runs, the tables it writes,
an interrupted run's tables and --from-raw, with a stand-in for `kalah` (a script answering
`solve --json` at once with a search of 0.2 s on one thread and 0.1 s on two).

Usage: python3 scripts/bench_threads_test.py [-v]
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "bench_threads"

# The stand-in: `--version`, or a solve's JSON report. Two threads search half the seconds of
# one, with 2% more nodes; a full solve spends a tenth of its search on its tests.
FAKE_KALAH = r'''#!/usr/bin/python3
import json, sys, time
args = sys.argv[1:]
if args == ["--version"]:
    print("kalah stand-in")
    sys.exit(0)
threads = int(args[args.index("--threads") + 1])
time.sleep(float(__import__("os").environ.get("FAKE_SLEEP", "0")))
search = 0.2 / threads
print(json.dumps({"value": 8, "nodes": 1000 if threads == 1 else 1020, "search_seconds": search,
                  "value_seconds": search * (1.0 if "--value-only" in args else 0.9),
                  "value_only": "--value-only" in args, "idle_seconds": 0.0 if threads == 1 else 0.001,
                  "discarded_nodes": 0 if threads == 1 else 10}))
'''


class BenchThreadsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = Path(self.dir.name)
        self.kalah = self.path / "kalah"
        self.kalah.write_text(FAKE_KALAH)
        self.kalah.chmod(0o755)

    def tearDown(self):
        self.dir.cleanup()

    def command(self, *args):
        return [sys.executable, str(SCRIPT), "--kalah", str(self.kalah), "--game", "6x4-standard=db:1G", *args]

    def rows(self, text):
        return [line.split(" | ") for line in text.splitlines() if line.startswith("| 6x4")]

    def test_full_rounds_give_both_tables(self):
        out, raw = self.path / "t.md", self.path / "t.jsonl"
        subprocess.run(self.command("--rounds", "5", "--mode", "full", "--out", str(out), "--raw", str(raw)),
                       check=True, capture_output=True, timeout=60)
        text = out.read_text()
        self.assertIn("medians of 5 runs a thread count after 1 not counted", text)
        rows = self.rows(text)
        self.assertEqual(len(rows), 3)  # one thread, two threads, and the phases' row
        self.assertEqual(rows[1][4], "+2.0%")  # extra nodes
        self.assertEqual(rows[1][10], "2.00")  # speed-up
        self.assertEqual(rows[2][2:4], ["2.00 (2.00-2.00)", "2.00 (2.00-2.00) |"])
        self.assertEqual(len(raw.read_text().splitlines()), 10)  # counted runs only
        # The tables again from the raw runs: the same rows.
        again = subprocess.run([sys.executable, str(SCRIPT), "--from-raw", str(raw)], check=True,
                               capture_output=True, text=True, timeout=60).stdout
        self.assertEqual(self.rows(again), rows)
        self.assertIn("Rebuilt by", again)

    def test_an_interrupt_keeps_the_whole_rounds(self):
        out, raw = self.path / "t.md", self.path / "t.jsonl"
        env = dict(os.environ, FAKE_SLEEP="0.05")
        p = subprocess.Popen(self.command("--rounds", "1000", "--warmup", "0", "--out", str(out), "--raw", str(raw)),
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while time.time() < deadline and (not raw.exists() or len(raw.read_text().splitlines()) < 7):
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("interrupted in 6x4-standard@1G's round", err)
        runs = len(raw.read_text().splitlines())
        text = out.read_text()
        self.assertIn(f"medians of the runs of whole rounds (6x4-standard@1G: {runs // 2}; interrupted", text)
        self.assertEqual(self.rows(text)[1][10], "2.00")

    def test_bad_input_is_named(self):
        bad = self.path / "bad.jsonl"
        bad.write_text("{}\n")
        for args, message in ((["--from-raw", str(bad)], "bad.jsonl:1: not a run of --raw"),
                              ([], "name a --game to measure"),
                              (["--game", "6x4-standard=db", "--threads", "1,x"], "--threads wants counts")):
            p = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn(message, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


if __name__ == "__main__":
    unittest.main()
