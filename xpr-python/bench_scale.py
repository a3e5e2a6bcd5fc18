"""Scale-out benchmark (docs/scale-out.md): rows per second per worker core
for the flights filter `delay > 60 && distance > 1000` on a Dask
LocalCluster (2 worker processes, 1 thread each), as

  - xpr:    xpr_rs.dask.filter (pandas partition -> Arrow -> xpr -> pandas,
            the failed-row count read from the workers after),
  - pandas: the same filter as a pandas expression,
            ddf[(ddf.delay > 60) & (ddf.distance > 1000)],
  - apply:  a Python lambda per row, df.apply(lambda r: ..., axis=1).

The 20,000 flights are repeated to ROWS rows (default 2,000,000) in
PARTITIONS partitions, persisted on the workers before timing, so each
pass measures the filter and Dask's task overhead, not the transfer of
the input. Each variant: one untimed pass, then the best of ROUNDS timed
passes, xpr and pandas taking turns (apply: on a tenth of the rows, one timed pass: it is slow);
rows/s/core = rows / (seconds x 2 cores). Then the partition function
alone on one partition in this process, against the pandas expression.
Floors (issue 17): xpr within 2x
of pandas, and at least 20x faster than apply.

Run on the release wheel:

    maturin build --release --manifest-path xpr-python/Cargo.toml \
        --interpreter target/py-venv/bin/python --out target/py-wheels-release
    target/py-venv/bin/pip install --force-reinstall --no-deps target/py-wheels-release/*.whl
    target/py-venv/bin/python xpr-python/bench_scale.py [ROWS] [PARTITIONS] [ROUNDS]

(xpr-python/run_tests.sh puts the debug wheel back.)
"""

import pathlib
import sys
import time

import dask
import dask.dataframe as dd
import distributed
import pandas as pd
import pyarrow.json

import xpr_rs.dask
import xpr_rs.dataframe

FLIGHTS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data" / "flights-20k.ndjson"
SOURCE = "delay > 60 && distance > 1000"
WORKERS = 2


def best(runs, rounds):
    """The best wall time of each of `runs` (name -> function) over
    `rounds` rounds, after one untimed round; the variants take turns
    within a round, so a busy machine slows them alike."""
    for run in runs.values():
        run()
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: min(t) for name, t in times.items()}


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    partitions = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    base = pyarrow.json.read_json(FLIGHTS).to_pandas()
    frame = pd.concat([base] * (rows // len(base)), ignore_index=True)
    rows = len(frame)
    small = frame.iloc[: rows // 10]
    with distributed.LocalCluster(
        n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        ddf = dd.from_pandas(frame, npartitions=partitions).persist()
        sddf = dd.from_pandas(small, npartitions=partitions).persist()
        distributed.wait([ddf, sddf])

        def xpr():
            late, errors = xpr_rs.dask.filter(ddf, SOURCE)
            return late.compute(), errors.value

        def vectorised():
            return ddf[(ddf.delay > 60) & (ddf.distance > 1000)].compute()

        def apply():
            keep = lambda r: r.delay > 60 and r.distance > 1000  # noqa: E731
            return sddf.map_partitions(lambda df: df[df.apply(keep, axis=1)]).compute()

        kept = len(xpr()[0])
        assert kept == len(vectorised()) == 278 * (rows // len(base)), kept
        assert len(apply()) == 278 * (len(small) // len(base))
        seconds = best({"xpr": xpr, "pandas": vectorised}, rounds)
        seconds.update(best({"apply": apply}, 1))
        counted = {"xpr": rows, "pandas": rows, "apply": len(small)}
        rate = {k: counted[k] / (s * WORKERS) for k, s in seconds.items()}
        print(f"{rows:,} rows ({len(small):,} for apply), {partitions} partitions, "
              f"{WORKERS} workers x 1 thread; versions: dask {dask.__version__}, "
              f"pandas {pd.__version__}")
        for k in ("xpr", "pandas", "apply"):
            print(f"  {k:7} {seconds[k]:8.3f} s  {rate[k] / 1e6:8.3f} M rows/s/core")
        # The partition function alone, in this process (no Dask task
        # overhead): one partition's rows.
        part = frame.iloc[: rows // partitions]
        step = xpr_rs.dataframe.FrameStep(SOURCE)
        alone = best(
            {
                "xpr": lambda: step(part),
                "pandas": lambda: part[(part.delay > 60) & (part.distance > 1000)],
            },
            rounds,
        )
        print(f"one partition of {len(part):,} rows in this process: xpr "
              f"{alone['xpr'] * 1e3:.2f} ms, pandas {alone['pandas'] * 1e3:.2f} ms "
              f"({alone['xpr'] / alone['pandas']:.2f}x)")
        slower = rate["pandas"] / rate["xpr"]
        faster = rate["xpr"] / rate["apply"]
        print(f"xpr vs pandas: {slower:.2f}x slower (floor: <= 2x)  "
              f"{'OK' if slower <= 2 else 'MISSED'}")
        print(f"xpr vs apply: {faster:.1f}x faster (floor: >= 20x)  "
              f"{'OK' if faster >= 20 else 'MISSED'}")
        del client


if __name__ == "__main__":
    main()
