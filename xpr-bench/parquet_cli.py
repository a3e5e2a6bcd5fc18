#!/usr/bin/env python3
"""`xpr run` over Parquet against DuckDB on the same file (issue 16, item 5).

Makes a Parquet copy (snappy, pyarrow's defaults) of
../shared/data/flights-20k.ndjson repeated 20x (400,000 rows) in a
temporary directory, then runs three workloads, NDJSON out to /dev/null:

  W1 filter:     xpr run --filter 'delay > 60 && distance > 1000'
                 SELECT * ... WHERE delay > 60 AND distance > 1000
  W2 projection: xpr run '{route: origin + "-" + destination, late: delay > 60}'
                 SELECT origin || '-' || destination AS route, delay > 60 AS late
  W3 string:     xpr run 'origin.lower() + " -> " + destination.lower()'
                 SELECT lower(origin) || ' -> ' || lower(destination) AS s

each with xpr's default jobs (all cores) and `--jobs 1`, and DuckDB
(`COPY (query) TO '/dev/null' (FORMAT json)` in a fresh Python process,
default threads). CPU time is user + system time: xpr's is its whole
process (getrusage of the child); DuckDB's is the query's alone, measured
inside its process (getrusage of the process, all its threads, and a
monotonic clock, around the COPY, after `import duckdb` and a first
`SELECT 1`): its start-up is not charged to it.
Each command runs ROUNDS times (default 3), in turns, each round in an
order of its own (seeded: the same orders every run); medians are
reported, with the load average before and after.

With the DuckDB CLI (`pip install duckdb-cli`; on PATH or named by
DUCKDB), a second comparison: the same COPY run by `duckdb -c`, its CPU
time its whole process as xpr's is (start-up included on both sides).
The floor is judged on the first (DuckDB's query alone).

Usage: python xpr-bench/parquet_cli.py XPR_BINARY   (a Python with duckdb
and pyarrow: `pip install duckdb pyarrow` in a venv; the binary built with
`cargo build --release -p xpr-cli --features columnar`).
"""

import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.json as pj
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "shared", "data", "flights-20k.ndjson")
ROUNDS = int(os.environ.get("ROUNDS", "3"))

WORKLOADS = [
    (
        "W1 filter",
        ["--filter", "delay > 60 && distance > 1000"],
        "SELECT * FROM '{f}' WHERE delay > 60 AND distance > 1000",
    ),
    (
        "W2 projection {route, late}",
        ['{route: origin + "-" + destination, late: delay > 60}'],
        "SELECT origin || '-' || destination AS route, delay > 60 AS late FROM '{f}'",
    ),
    (
        "W3 string transform",
        ['origin.lower() + " -> " + destination.lower()'],
        "SELECT lower(origin) || ' -> ' || lower(destination) AS s FROM '{f}'",
    ),
]


def measure(argv, inside=False):
    """Runs argv (stdout to /dev/null); returns (wall s, CPU s): of the
    whole child, or as the child prints them (`inside`)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.PIPE if inside else subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if inside:
        wall, cpu = map(float, done.stdout.split())
    return wall, cpu


DUCKDB = """
import resource, sys, time, duckdb
duckdb.sql('SELECT 1').fetchall()
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
c, w = cpu(), time.perf_counter()
duckdb.sql(sys.argv[1])
print(time.perf_counter() - w, cpu() - c)
"""


def duckdb_argv(sql):
    return [sys.executable, "-c", DUCKDB, sql]


def duckdb_cli():
    """The DuckDB CLI to run, if any: DUCKDB, else `duckdb` on PATH."""
    import shutil

    return os.environ.get("DUCKDB") or shutil.which("duckdb")


def main():
    xpr = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        table = pj.read_json(SOURCE)
        table = pa.concat_tables([table] * 20)
        path = os.path.join(tmp, "flights-400k.parquet")
        pq.write_table(table, path)
        rows = table.num_rows
        commands = {}
        for name, args, sql in WORKLOADS:
            copy = f"COPY ({sql.format(f=path)}) TO '/dev/null' (FORMAT json)"
            commands[(name, "duckdb")] = duckdb_argv(copy)
            if duckdb_cli():
                commands[(name, "duckdb cli")] = [duckdb_cli(), "-c", copy]
            base = [xpr, "run", "-q", "--input", "parquet"]
            commands[(name, "xpr")] = base + args + [path]
            commands[(name, "xpr -j1")] = base + ["--jobs", "1"] + args + [path]
        load_before = os.getloadavg()
        results = {k: [] for k in commands}
        # Each round in its own order: a command run just after another
        # tool's process finds the caches cold, so a fixed order would
        # favour whichever comes after a command of its own tool.
        order = list(commands.items())
        for r in range(ROUNDS):
            random.Random(r).shuffle(order)
            for key, argv in order:
                results[key].append(measure(argv, inside=key[1] == "duckdb"))
        load_after = os.getloadavg()
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in results.items()}
    print(f"{rows} rows, {ROUNDS} rounds (medians), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{os.cpu_count()} cores, load {load_before[0]:.1f} -> {load_after[0]:.1f}")
    print()
    print("| workload | xpr wall s | xpr CPU s | xpr -j1 wall s | xpr -j1 CPU s | DuckDB wall s | DuckDB CPU s | DuckDB/xpr CPU | DuckDB/xpr wall |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for name, _, _ in WORKLOADS:
        xw, xc = med[(name, "xpr")]
        jw, jc = med[(name, "xpr -j1")]
        dw, dc = med[(name, "duckdb")]
        print(f"| {name} | {xw:.4f} | {xc:.4f} | {jw:.4f} | {jc:.4f} | {dw:.4f} | {dc:.4f} | "
              f"{dc / xc:.2f}x | {dw / xw:.2f}x |")
    if duckdb_cli():
        print()
        print("Whole processes, start-up included on both sides (the DuckDB CLI, `duckdb -c`):")
        print()
        print("| workload | xpr CPU s | DuckDB CLI wall s | DuckDB CLI CPU s | DuckDB CLI / xpr CPU |")
        print("|---|--:|--:|--:|--:|")
        for name, _, _ in WORKLOADS:
            _, xc = med[(name, "xpr")]
            cw, cc = med[(name, "duckdb cli")]
            print(f"| {name} | {xc:.4f} | {cw:.4f} | {cc:.4f} | {cc / xc:.2f}x |")


if __name__ == "__main__":
    main()
