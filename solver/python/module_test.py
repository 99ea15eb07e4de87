#!/usr/bin/env python3
"""The Python module (solver/python/module.cpp) against the command line: value() equals
`kalah solve`, moves() and label_batch() equal `kalah label`, for each value rule set on small
boards; bad input raises ValueError; sample() gives the seeds asked for; Ctrl-C stops a batch. Run by ctest with
PYTHONPATH at the built module and KALAH_BINARY at the built tool."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import kalah

KALAH = os.environ["KALAH_BINARY"]
RULES = [("standard", {}), ("standard", {"end": "mover"}), ("empty-capture", {}),
         ("empty-capture", {"end": "mover"}), ("relay", {}), ("relay", {"end": "mover"})]


def cli(*args, stdin=None):
    r = subprocess.run([KALAH, *args], input=stdin, capture_output=True, text=True, check=True)
    return r.stdout


def rule_args(preset, overrides):
    args = ["--rules", preset]
    for k, v in overrides.items():
        args += [f"--{k}", v]
    return args


def main():
    failures = 0

    def check(cond, what):
        nonlocal failures
        if not cond:
            failures += 1
            print("FAILED:", what, file=sys.stderr)

    check(cli("--version").split()[1] == kalah.__version__, "__version__ is the commit kalah --version names")

    for preset, overrides in RULES:
        solver = kalah.Solver(pits=4, seeds=3, rules=preset, threads=1, table_bytes=16 << 20, **overrides)
        positions = [kalah.sample(4, 3, k, seed=k, rules=preset) for k in (24, 20, 16, 12, 8)]
        check(all(sum(int(x) for x in p.split("/")[0].split(",") + p.split("/")[1].split(",")) == k
                  for p, k in zip(positions, (24, 20, 16, 12, 8))), "sample: seeds in the pits")
        expected = [json.loads(line) for line in
                    cli("label", "--pits", "4", "--seeds", "3", "--threads", "1", *rule_args(preset, overrides),
                        stdin="\n".join(positions) + "\n").splitlines()]
        for p, e in zip(positions, expected):
            what = f"{preset} {overrides} {p}"
            solve = json.loads(cli("solve", "--position", p, "--value-only", "--json", "--threads", "1",
                                   *rule_args(preset, overrides)))
            check(solver.value(p) == solve["value"], f"value {what}")
            got = solver.moves(p)
            check(got["value"] == e["value"], f"moves value {what}")
            check([(m["pit"], m["value"], m["extra_turn"], m["loss"]) for m in got["moves"]] ==
                  [(m["pit"], m["value"], m["extra_turn"], m["loss"]) for m in e["moves"]], f"moves {what}")
            check(got["best"] == e["best"], f"best {what}")
        batch = solver.label_batch(positions + ["not a position"], threads=2)
        check(len(batch) == len(positions) + 1, "batch length")
        for b, e in zip(batch, expected):
            check(b["position"] == e["position"] and b["value"] == e["value"] and
                  [m["value"] for m in b["moves"]] == [m["value"] for m in e["moves"]], f"batch {b['position']}")
        check("error" in batch[-1], "batch: a bad position gives an error entry")

    solver = kalah.Solver(pits=4, seeds=3, threads=1, table_bytes=16 << 20)
    for bad in ["4,4,4/4,4,4/0/0/S", "garbage", "9,9,9,9/9,9,9,9/0/0/S"]:
        try:
            solver.value(bad)
            check(False, f"no ValueError for {bad!r}")
        except ValueError as e:
            check(len(str(e)) > 0 and "\n" not in str(e), f"one-line reason for {bad!r}")
    try:
        kalah.Solver(pits=4, seeds=3, rules="nonsense")
        check(False, "no ValueError for an unknown preset")
    except ValueError:
        pass
    # Calls from several Python threads at once are served one at a time, no deadlock.
    p = kalah.sample(4, 3, 18, seed=3)
    values = []
    threads = [threading.Thread(target=lambda: values.append(solver.value(p))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    check(len(values) == 4 and len(set(values)) == 1, "values from four threads")

    # A book: the start is answered from it (no search), with the values the command line gives.
    book = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"kalah_module_test_{os.getpid()}.book")
    try:
        cli("book", "build", book, "--pits", "4", "--seeds", "3", "--plies", "3", "--threads", "1")
        booked = kalah.Solver(pits=4, seeds=3, threads=1, table_bytes=16 << 20, book=book)
        start = "3,3,3,3/3,3,3,3/0/0/S"
        got = booked.moves(start)
        e = json.loads(cli("label", "--pits", "4", "--seeds", "3", "--threads", "1", stdin=start + "\n"))
        check(got["from_book"] and got["nodes"] == 0, "book: the start from the book")
        check([(m["pit"], m["value"]) for m in got["moves"]] == [(m["pit"], m["value"]) for m in e["moves"]],
              "book: the start's values")
        check(booked.value(start) == e["value"], "book: value")
        for bad in ({"pits": 5, "book": book}, {"pits": 4, "book": book + ".missing"}):
            try:
                kalah.Solver(seeds=3, threads=1, table_bytes=16 << 20, **bad)
                check(False, f"book: {bad} accepted")
            except ValueError:
                pass
    finally:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(book + suffix):
                os.remove(book + suffix)

    # Ctrl-C during a long batch (positions with many seeds and no database) raises
    # KeyboardInterrupt soon; the solver answers again afterwards.
    big = kalah.Solver(pits=6, seeds=4, threads=2, table_bytes=64 << 20)
    positions = [kalah.sample(6, 4, 40, seed=s) for s in range(400)]
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        big.label_batch(positions, threads=2)
        interrupted = False
    except KeyboardInterrupt:
        interrupted = True
    elapsed = time.monotonic() - start
    timer.join()
    check(interrupted or elapsed < 0.5, f"Ctrl-C: no KeyboardInterrupt, the batch ran {elapsed:.1f} s")
    check(elapsed < 10, f"Ctrl-C: the batch stopped only after {elapsed:.1f} s")
    check(big.value(kalah.sample(6, 4, 20, seed=1)) in range(-48, 49), "a value after Ctrl-C")
    print("python module:", "ok" if failures == 0 else f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
