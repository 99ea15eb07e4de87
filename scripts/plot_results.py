#!/usr/bin/env python3
"""Plots for results/README.md, drawn from results/values.csv and results/openings.csv.

Called by scripts/report with the results folder as argument; prints a JSON object
{key: png file name} on stdout. Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RULE_SETS = [("empty-either", "empty capture, either end"),
             ("standard-either", "nonempty capture, either end"),
             ("empty-mover", "empty capture, mover end"),
             ("standard-mover", "nonempty capture, mover end")]


def main():
    res = Path(sys.argv[1])
    rows = list(csv.DictReader(open(res / "values.csv")))
    openings = list(csv.DictReader(open(res / "openings.csv")))
    plots = {}

    # The grid's size: every m and n solved under some rule set (m = 7, 8 only for small n).
    max_m = max([6] + [int(r["m"]) for r in rows])
    max_n = max([6] + [int(r["n"]) for r in rows])

    # 1. First-player margin over (m, n), one panel per rule set.
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.4 * max_m / 6), constrained_layout=True)
    for ax, (rs, title) in zip(axes, RULE_SETS):
        grid = [[None] * max_n for _ in range(max_m)]
        for r in rows:
            if r["rule_set"] == rs and r["status"] in ("solved", "value-only"):
                grid[int(r["m"]) - 1][int(r["n"]) - 1] = int(r["value"])
        vals = [v for row in grid for v in row if v is not None]
        lim = max([abs(v) for v in vals] + [1])
        data = [[float("nan") if v is None else v for v in row] for row in grid]
        im = ax.imshow(data, cmap="RdBu", vmin=-lim, vmax=lim, origin="lower",
                       extent=(0.5, max_n + 0.5, 0.5, max_m + 0.5))
        for m in range(max_m):
            for n in range(max_n):
                v = grid[m][n]
                ax.text(n + 1, m + 1, "–" if v is None else (f"+{v}" if v > 0 else str(v)),
                        ha="center", va="center", fontsize=10)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("n (seeds a pit)")
        ax.set_ylabel("m (pits a side)")
        ax.set_xticks(range(1, max_n + 1))
        ax.set_yticks(range(1, max_m + 1))
    fig.colorbar(im, ax=axes, shrink=0.8, label="first-player margin")
    fig.suptitle("Kalah(m,n): first player's margin with perfect play (– = not solved within budget)")
    fig.savefig(res / "margin_grid.png", dpi=90)
    plt.close(fig)
    plots["value_grid"] = "margin_grid.png"

    # 2. Margin against n, one line per m, per rule set.
    fig, axes = plt.subplots(1, 4, figsize=(17, 4), sharey=True, constrained_layout=True)
    for ax, (rs, title) in zip(axes, RULE_SETS):
        for m in range(1, max_m + 1):
            pts = sorted((int(r["n"]), int(r["value"])) for r in rows
                         if r["rule_set"] == rs and r["status"] in ("solved", "value-only") and int(r["m"]) == m)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"m={m}")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("n (seeds a pit)")
    axes[0].set_ylabel("first-player margin")
    axes[-1].legend(fontsize=8)
    fig.savefig(res / "margin_by_n.png", dpi=90)
    plt.close(fig)
    plots["openings_0_margin_by_n"] = "margin_by_n.png"

    # 3. Value of every first sowing, six pits, per rule set and n.
    fig, axes = plt.subplots(1, 4, figsize=(17, 4), sharey=True, constrained_layout=True)
    width = 0.13
    for ax, (rs, title) in zip(axes, RULE_SETS):
        for k, n in enumerate(range(1, 7)):
            pts = sorted((int(o["move"]), int(o["value"])) for o in openings
                         if o["rule_set"] == rs and o["kind"] == "sowing" and o["m"] == "6" and int(o["n"]) == n)
            if pts:
                ax.bar([p[0] + (k - 2.5) * width for p in pts], [p[1] for p in pts], width, label=f"n={n}")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("first sowing (South's pit)")
        ax.set_xticks(range(1, 7))
    axes[0].set_ylabel("margin after it, perfect play")
    axes[-1].legend(fontsize=8)
    fig.suptitle("Kalah(6,n): value of each first sowing")
    fig.savefig(res / "openings_m6.png", dpi=90)
    plt.close(fig)
    plots["openings_1_m6"] = "openings_m6.png"

    print(json.dumps(plots))


if __name__ == "__main__":
    main()
