#!/usr/bin/python3
"""Tests scripts/report's reading of openings jobs (results/kalah83/*/job.sqlite).

Runs small openings jobs (Kalah(3,2) and Kalah(4,2) under the four rule sets of the tables)
and checks that the case the report makes of each equals a single `kalah openings --json`
solve of the same game (value, every first sowing and turn, pie value, balanced turns), that
unfinished, value-only and non-start jobs are left out of the cases (an unfinished one is listed
as under way, with bounds that hold), and that a job whose value differs
from the cached solve's stops the report. The binary: $KALAH_BINARY (default build/kalah).

Usage: KALAH_BINARY=build/kalah python3 scripts/report_test.py [-v]
"""
import importlib.machinery
import importlib.util
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from contextlib import redirect_stderr
from pathlib import Path

HERE = Path(__file__).resolve().parent
KALAH = os.environ.get("KALAH_BINARY") or str(HERE.parent / "build" / "kalah")
os.environ["KALAH"] = KALAH  # the binary the report runs

loader = importlib.machinery.SourceFileLoader("report", str(HERE / "report"))
report = importlib.util.module_from_spec(importlib.util.spec_from_loader("report", loader))
loader.exec_module(report)

RULE_SETS = {"standard-either": [], "empty-either": ["--rules", "empty-capture"],
             "standard-mover": ["--end", "mover"], "empty-mover": ["--capture", "empty", "--end", "mover"]}


def kalah(*args):
    return subprocess.run([KALAH, *args], check=True, capture_output=True, text=True, timeout=120).stdout


class ReportJobsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="report_test."))
        cls.jobs = {}
        for rs, rules in RULE_SETS.items():
            for m, n in ((3, 2), (4, 2)):
                d = cls.tmp / "games" / f"{rs}-m{m}n{n}"
                kalah("job", "init", str(d), "--pits", str(m), "--seeds", str(n), *rules)
                kalah("job", "run", str(d), "--workers", "2", "--threads", "1", "--unit-seconds", "0.001",
                      "--max-unit-seconds", "0.001", "--tt-memory", "16M")
                cls.jobs[(rs, m, n)] = d

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def case(self, job):
        with redirect_stderr(io.StringIO()) as err:
            c = report.job_case(report.job_status(Path(KALAH), job), job)
        return c, err.getvalue()

    def solved_case(self, key):
        case, err = self.case(self.jobs[key])
        self.assertIsNotNone(case, err)
        return case

    def test_a_finished_job_equals_a_single_solve(self):
        for (rs, m, n), d in self.jobs.items():
            with self.subTest(rule_set=rs, m=m, n=n):
                case, err = self.case(d)
                self.assertIsNotNone(case, err)
                self.assertEqual((case["rule_set"], case["m"], case["n"], case["status"]), (rs, m, n, "solved"))
                solve = json.loads(kalah("openings", "--pits", str(m), "--seeds", str(n), "--json", *RULE_SETS[rs]))
                for key in ("value", "moves", "turns", "pie_value", "balanced"):
                    self.assertEqual(case[key], solve[key], key)

    def test_unfinished_value_only_and_other_positions_are_left_out(self):
        made = {"unfinished": ["--pits", "3", "--seeds", "2"],
                "value-only": ["--pits", "3", "--seeds", "2", "--value-only"],
                "position": ["--position", "1,2,2/2,2,2/1/0/S"],
                "early-end": ["--pits", "3", "--seeds", "2", "--early-end"]}
        for name, args in made.items():
            with self.subTest(job=name):
                d = self.tmp / "left-out" / name
                kalah("job", "init", str(d), *args)
                if name != "unfinished":
                    kalah("job", "run", str(d), "--workers", "1", "--threads", "1", "--tt-memory", "16M")
                case, err = self.case(d)
                self.assertIsNone(case)
                self.assertIn(str(d), err)

    def test_an_unfinished_job_is_listed_as_under_way_with_bounds_that_hold(self):
        # Kalah(5,3) stopped after about a third of a second (--hours): its proven bounds go into the list of
        # jobs under way, not into the cases, and each contains the value a single solve gives.
        folder = self.tmp / "under-way"
        d = folder / "game"
        kalah("job", "init", str(d), "--pits", "5", "--seeds", "3")
        kalah("job", "run", str(d), "--workers", "1", "--threads", "1", "--unit-seconds", "0.01",
              "--max-unit-seconds", "0.01", "--tt-memory", "16M", "--hours", "0.0001")
        saved = report.OPENING_JOB_FOLDERS
        report.OPENING_JOB_FOLDERS = [folder]
        try:
            cases, under_way = {}, []
            with redirect_stderr(io.StringIO()) as err:
                report.add_job_cases(cases, under_way)
        finally:
            report.OPENING_JOB_FOLDERS = saved
        self.assertEqual(cases, {})
        self.assertEqual(len(under_way), 1, err.getvalue())
        self.assertIn("listed as under way", err.getvalue())
        j = under_way[0]
        self.assertEqual((j["m"], j["n"], j["rule_set"]), (5, 3, "standard-either"))
        solve = json.loads(kalah("openings", "--pits", "5", "--seeds", "3", "--json"))
        self.assertLessEqual(j["lower"], solve["value"])
        self.assertLessEqual(solve["value"], j["upper"])
        self.assertEqual([pit for pit, *_ in j["sowings"]], [mv["pit"] for mv in solve["moves"]])
        for (pit, lower, upper, extra), mv in zip(j["sowings"], solve["moves"]):
            self.assertTrue(lower <= mv["value"] <= upper, (pit, lower, upper, mv["value"]))
            self.assertEqual(extra, mv["extra_turn"], pit)
        self.assertLess(j["goals"][0], j["goals"][1])
        self.assertEqual((report.bounds_text(6, 6), report.bounds_text(-2, 4)), ("+6", "[-2, +4]"))

    def test_a_job_that_contradicts_the_cached_solve_stops_the_report(self):
        key = ("standard-either", 3, 2)
        folder = self.tmp / "folder"
        folder.mkdir(exist_ok=True)
        shutil.copytree(self.jobs[key], folder / "game", dirs_exist_ok=True)
        saved = report.OPENING_JOB_FOLDERS
        report.OPENING_JOB_FOLDERS = [folder]
        try:
            cases = {key: {"status": "value-only", "value": 4}}
            report.add_job_cases(cases)
            self.assertEqual(cases[key]["status"], "solved")
            self.assertEqual(cases[key]["source"], "job")
            cases = {key: {"status": "value-only", "value": 2}}
            with self.assertRaises(SystemExit) as stop:
                report.add_job_cases(cases)
            self.assertIn("results/raw/ says +2", str(stop.exception))
            # A cached full solve must agree turn by turn, not in the value alone.
            turns = [dict(t) for t in self.solved_case(key)["turns"]]
            turns[0]["value"] += 2
            cases = {key: {"status": "solved", "value": 4, "turns": turns, "pie_value": 0}}
            with self.assertRaises(SystemExit) as stop:
                report.add_job_cases(cases)
            self.assertIn("differ in turns", str(stop.exception))
        finally:
            report.OPENING_JOB_FOLDERS = saved

    def test_rule_set_names(self):
        rules = json.loads(kalah("openings", "--pits", "1", "--seeds", "1", "--json", "--rules", "relay"))["rules"]
        self.assertEqual(report.rule_set_of(rules), "relay-mover")
        rules = json.loads(kalah("openings", "--pits", "1", "--seeds", "1", "--json", "--rules", "bga"))["rules"]
        self.assertIsNone(report.rule_set_of(rules))  # bga ends early


if __name__ == "__main__":
    unittest.main()
