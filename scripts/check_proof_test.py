#!/usr/bin/python3
"""Tests scripts/check_proof, the independent checker of a proof job's proof.

Runs three small openings jobs (Kalah(4,3): standard, empty-capture, bga = mover end) with
tiny units so that their top trees split, checks that their proofs pass, that the unit
leaves it writes (--leaves) are what `kalah solve` finds, that tampered proofs fail (exit
1) and bad input is refused (exit 2), and that the committed Kalah(6,6) stores' proofs
pass. The binary: $KALAH_BINARY (default build/kalah beside this script's directory).

Usage: KALAH_BINARY=build/kalah python3 scripts/check_proof_test.py [-v]
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
CHECKER = os.path.join(HERE, "check_proof")
KALAH = os.environ.get("KALAH_BINARY") or os.path.join(SOURCE, "build", "kalah")

JOBS = {"standard": [], "empty-capture": ["--rules", "empty-capture"], "bga": ["--rules", "bga"]}


def kalah(*args):
    return subprocess.run([KALAH, *args], check=True, capture_output=True, text=True, timeout=120).stdout


def check(status, *args, text=None):
    """Runs the checker on a status object (or raw text): (exit code, stdout + stderr)."""
    data = text if text is not None else json.dumps(status)
    r = subprocess.run([sys.executable, CHECKER, "-", *args], input=data, capture_output=True,
                       text=True, timeout=120)
    return r.returncode, r.stdout + r.stderr


def parity_up(x, k):
    return x if (x - k) % 2 == 0 else x + 1


def parity_down(x, k):
    return x if (x - k) % 2 == 0 else x - 1


def children(lines, i):
    """The indices of line i's child lines and the end of its subtree."""
    d, out, j = lines[i]["depth"], [], i + 1
    while j < len(lines) and lines[j]["depth"] > d:
        if lines[j]["depth"] == d + 1:
            out.append(j)
        j += 1
    return out, j


class CheckProofTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="check_proof_test.")
        cls.status = {}
        for name, rules in JOBS.items():
            d = os.path.join(cls.tmp, name)
            kalah("job", "init", d, "--pits", "4", "--seeds", "3", *rules)
            kalah("job", "run", d, "--workers", "2", "--threads", "1", "--unit-seconds", "0.0005",
                  "--max-unit-seconds", "0.0005", "--tt-memory", "16M")
            cls.status[name] = json.loads(kalah("job", "status", d, "--proof", "--json"))
        # The committed Kalah(6,6) standard store: a deep proof (depth 8, every kind of line but
        # seeds and end) that does not depend on a small run's timing, tampered with first.
        committed = os.path.join(SOURCE, "results", "kalah66", "standard")
        cls.committed = None
        if os.path.exists(os.path.join(committed, "job.sqlite")):
            cls.committed = json.loads(kalah("job", "status", committed, "--proof", "--json"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assertFails(self, status, reason):
        code, out = check(status)
        self.assertEqual(code, 1, out)
        self.assertIn(reason, out)
        return out

    def lines_where(self, pred):
        """(job, status copy, index) of the first line of any job for which pred holds: the
        committed store's first, then the small jobs'."""
        jobs = ([("committed standard", self.committed)] if self.committed else []) + list(self.status.items())
        for name, status in jobs:
            lines = status["proof"]["lines"]
            for i in range(len(lines)):
                if pred(lines, i):
                    return name, copy.deepcopy(status), i
        self.skipTest("no job's proof has such a line")

    def test_small_jobs_pass(self):
        kinds_all = set()
        for name, status in self.status.items():
            with self.subTest(job=name):
                lines = status["proof"]["lines"]
                kinds = {line["by"] for line in lines}
                kinds_all |= kinds
                # A small run's tree depends on its units' timing (a unit at the position may
                # even answer alone); the committed store's proof is the deep one.
                self.assertIn("unit", kinds)
                code, out = check(status)
                self.assertEqual(code, 0, out)
                self.assertIn("every check passed", out)
                self.assertIn("certified by the proof", out)
        if self.committed:
            lines = self.committed["proof"]["lines"]
            self.assertGreater(max(line["depth"] for line in lines), 1)
            kinds_all |= {line["by"] for line in lines}
        self.assertTrue({"children", "unit", "again"} <= kinds_all, kinds_all)

    def test_leaves_are_what_kalah_solve_finds(self):
        for name, status in self.status.items():
            with self.subTest(job=name):
                path = os.path.join(self.tmp, name + ".leaves")
                code, out = check(status, "--leaves", path)
                self.assertEqual(code, 0, out)
                with open(path) as f:
                    leaves = [json.loads(line) for line in f]
                units = set(status["proof"]["units"])
                self.assertTrue(leaves)
                self.assertEqual({leaf["unit"] for leaf in leaves}, units)
                rules = status["rules"]
                for leaf in leaves[:8]:
                    south, north, ss, sn, mover = leaf["position"].split("/")
                    self.assertEqual(mover, leaf["mover"])
                    own, other = (south, north) if mover == "S" else (north, south)
                    self.assertEqual(leaf["board"], [int(v) for v in (own + "," + other).split(",")])
                    solved = json.loads(kalah("solve", "--position", leaf["position"], "--capture",
                                              rules["capture"], "--end", rules["end"], "--value-only",
                                              "--json", "--threads", "1", "--tt-memory", "16M"))
                    v = solved["value"] - (int(ss) - int(sn))
                    v = v if mover == "S" else -v
                    self.assertEqual(v >= leaf["gamma"], leaf["holds"], (leaf, solved["value"]))

    # Tampering: each must fail (exit 1), for the reason tampered with.

    def test_gamma_raised(self):
        def breaks(lines, i):
            line = lines[i]
            if line["by"] != "children" or not line["holds"]:
                return False
            c = lines[i + 1]
            k = sum(c["board"])
            lo = max(-k, parity_up(c["gamma"], k)) if c["holds"] else -k
            hi = k if c["holds"] else min(k, parity_down(c["gamma"] - 1, k))
            through = c["stored"] + lo if c["extra_turn"] else c["stored"] - hi
            return through < line["gamma"] + 2
        _, status, i = self.lines_where(breaks)
        status["proof"]["lines"][i]["gamma"] += 2
        self.assertFails(status, f"line {i} ")

    def test_board_changed(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["depth"] > 0)
        status["proof"]["lines"][i]["board"][0] += 1
        self.assertFails(status, f"line {i} (depth")
        self.assertFails(status, "not this one")

    def test_root_board_changed(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["depth"] == 0)
        board = status["proof"]["lines"][i]["board"]
        board[0], board[-1] = board[-1] + 1, board[0]
        self.assertFails(status, f"line {i} (depth 0")

    def test_stored_changed(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["depth"] > 0)
        status["proof"]["lines"][i]["stored"] += 1
        self.assertFails(status, "stores")

    def test_child_of_failing_test_removed(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["by"] == "children"
                                        and not lines[i]["holds"])
        lines = status["proof"]["lines"]
        kids, _ = children(lines, i)
        last = kids[-1]
        _, end = children(lines, last)
        del lines[last:end]
        self.assertFails(status, f"line {i} ")
        self.assertFails(status, "every legal sowing")

    def test_extra_turn_flipped(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["depth"] > 0)
        line = status["proof"]["lines"][i]
        line["extra_turn"] = not line["extra_turn"]
        self.assertFails(status, "extra_turn should be")

    def test_again_points_nowhere(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["by"] == "again")
        lines = status["proof"]["lines"]
        line = lines[i]
        # a stronger test (the parent's logic still holds) that no earlier line made
        step = 2 if line["holds"] else -2
        earlier = {(tuple(x["board"]), x["gamma"], x["holds"]) for x in lines[:i]}
        while (tuple(line["board"]), line["gamma"], line["holds"]) in earlier:
            line["gamma"] += step
        self.assertFails(status, "no earlier line made this test")

    def test_bound_tightened(self):
        status = copy.deepcopy(self.status["standard"])
        status["lower"] += 2
        status["value"] = None
        self.assertFails(status, "NOT CERTIFIED")
        status = copy.deepcopy(self.status["empty-capture"])
        status["sowings"][0]["upper"] -= 2
        status["sowings"][0]["value"] = None
        self.assertFails(status, "NOT CERTIFIED")

    def test_unit_unknown(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["by"] == "unit")
        status["proof"]["units"].remove(status["proof"]["lines"][i]["unit"])
        self.assertFails(status, "is not one of the proof's units")

    def test_again_at_an_ancestor(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["by"] == "children" and lines[i]["depth"] > 0
                                        and lines[i]["holds"] and lines[i + 1]["by"] == "children")
        lines = status["proof"]["lines"]
        # The child proves its test by pointing back at the line above: circular.
        _, end = children(lines, i + 1)
        lines[i + 1]["by"] = "again"
        lines[i + 1]["board"], lines[i + 1]["gamma"] = lines[i]["board"], lines[i]["gamma"]
        del lines[i + 2:end]
        self.assertFails(status, f"line {i + 1} ")

    def test_path_changed(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["depth"] == 0 and lines[i]["path"])
        path = status["proof"]["lines"][i]["path"]
        path[-1] = path[-1] % status["pits"] + 1
        self.assertFails(status, f"line {i} (depth 0")

    def test_holding_test_with_two_children(self):
        _, status, i = self.lines_where(lambda lines, i: lines[i]["by"] == "children" and lines[i]["holds"])
        lines = status["proof"]["lines"]
        _, end = children(lines, i + 1)
        lines[end:end] = copy.deepcopy(lines[i + 1:end])  # the proving child twice
        self.assertFails(status, "one child line expected")

    def test_seeds_lemma(self):
        # Kalah(2,1)-sized board, 2 seeds in the pits: the seeds give v >= -2, and v >= 0 with
        # empty capture (the mover banks a seed); v >= 2 is beyond them either way.
        def status(capture, gamma):
            return {"pits": 2, "position": "1,0/0,1/0/0/S", "openings": False, "lower": 0, "upper": 0,
                    "rules": {"sowing": "kalah", "capture": capture, "end": "either"},
                    "proof": {"units": [], "lines": [
                        {"depth": 0, "node": 0, "pit": None, "stored": None, "extra_turn": False,
                         "board": [1, 0, 0, 1], "path": [], "gamma": gamma, "holds": True, "by": "seeds",
                         "unit": None}]}}
        code, out = check(status("empty", 0))
        self.assertEqual(code, 0, out)
        self.assertIn("certified by the proof (line 0)", out)
        self.assertFails(status("nonempty", 0), "do not decide it")
        self.assertFails(status("empty", 2), "do not decide it")

    # Bad input: exit 2.

    def test_bad_input(self):
        self.assertEqual(check(None, text="this is not JSON")[0], 2)
        status = copy.deepcopy(self.status["standard"])
        del status["proof"]
        code, out = check(status)
        self.assertEqual(code, 2, out)
        self.assertIn("no proof", out)
        status = copy.deepcopy(self.status["standard"])
        status["rules"]["sowing"] = "relay"
        code, out = check(status)
        self.assertEqual(code, 2, out)
        self.assertIn("kalah sowing only", out)
        status = copy.deepcopy(self.status["standard"])
        for line in status["proof"]["lines"]:
            del line["board"]
        self.assertEqual(check(status)[0], 2)
        for field, bad in (("lower", 4.5), ("upper", "72"), ("value", 3), ("rules", "standard")):
            status = copy.deepcopy(self.status["standard"])
            status[field] = bad
            code, out = check(status)
            self.assertEqual(code, 2, (field, out))

    # The committed stores (a run may be writing one: job status reads a snapshot).

    def test_committed_stores(self):
        for name in ("standard", "empty-capture"):
            d = os.path.join(SOURCE, "results", "kalah66", name)
            with self.subTest(store=name):
                if not os.path.exists(os.path.join(d, "job.sqlite")):
                    self.skipTest(f"{d} is missing")
                code, out = check(None, text=kalah("job", "status", d, "--proof", "--json"))
                self.assertEqual(code, 0, out)
                self.assertIn("certified by the proof", out)


if __name__ == "__main__":
    unittest.main()
