"""xpr_rs.dataframe, .dask, .spark, .ray: one expression over the
partitions of a distributed frame (docs/scale-out.md shows this code).

The Dask test runs a real ``LocalCluster`` with 2 worker processes over
the 20k flights (run_tests.sh installs ``dask[distributed]``); the Spark
and Ray tests run only with ``XPR_TEST_SPARK=1`` / ``XPR_TEST_RAY=1``
(pyspark and ray installed by hand: hundreds of MB each)."""

import os
import pickle
import sys

import pytest

import xpr_rs
from xpr_rs import dataframe

from conftest import shared

pa = pytest.importorskip("pyarrow")

FILTER = "delay > 60 && distance > 1000"
# Fails (a type error) on the 430 rows with delay > 100.
PROJECT = "delay > 100 ? origin - 1 : distance / 60"


def flights():
    """The 20k flights as a pyarrow Table (date, delay, distance, origin,
    destination)."""
    import pyarrow.json

    return pyarrow.json.read_json(shared("data/flights-20k.ndjson"))


class Count:
    """A stand-in for a Spark accumulator."""

    def __init__(self):
        self.value = 0

    def add(self, n):
        self.value += n


def small():
    return pa.table({"delay": [75, 3, 200, 90], "distance": [1200, 3000, 1500, 500], "origin": ["SFO", "JFK", "LAX", "BOS"]})


def test_a_step_filters_and_projects_batches_and_tables_counting_failures():
    count = Count()
    step = dataframe.Step(FILTER, on_error="null", errors=count)
    assert step(small()).column("origin").to_pylist() == ["SFO", "LAX"]
    batch = small().to_batches()[0]
    assert step(batch).num_rows == 2 and isinstance(step(batch), pa.RecordBatch)
    assert count.value == 0
    for policy, values, origins in [
        ("null", [20.0, 50.0, None, 500 / 60], ["SFO", "JFK", "LAX", "BOS"]),
        ("skip", [20.0, 50.0, 500 / 60], ["SFO", "JFK", "BOS"]),
    ]:
        step = dataframe.Step(PROJECT, "project", name="hours", on_error=policy, errors=count)
        for data in (small(), batch):
            out, report = step.apply(data)
            assert out.column("hours").to_pylist() == values
            assert out.column("origin").to_pylist() == origins
            assert (report["rows"], report["errors"], report["error_rows"]) == (4, 1, [2])
            assert "operator '-' requires numbers" in report["messages"][0]
    assert count.value == 4
    with pytest.raises(xpr_rs.XprTypeError) as info:
        dataframe.Step(PROJECT, "project")(small())
    assert info.value.row == 2


def test_a_partition_budget_fails_the_partition_whatever_the_policy():
    step = dataframe.Step(FILTER, on_error="skip", partition_fuel=10)
    with pytest.raises(xpr_rs.XprFuelError) as info:
        step(small())
    assert info.value.row is None
    out, report = dataframe.Step(FILTER, partition_fuel=10_000).apply(small())
    assert out.num_rows == 2 and 0 < report["fuel_used"] <= 10_000
    # Per-row limits still hold on their own.
    with pytest.raises(xpr_rs.XprFuelError):
        dataframe.Step("[1, 2, 3].map(x => x * delay).sum() > 0", fuel=3)(small())


def test_steps_pickle_as_source_and_compile_once_per_process():
    step = dataframe.Step(FILTER, on_error="null", fuel=5000)
    again = pickle.loads(pickle.dumps(step))
    before = dataframe.compilations
    for _ in range(3):
        assert again(small()).num_rows == 2
    assert dataframe.compilations == before  # the driver's program, cached
    assert again.program is step.program
    assert dataframe.compiled(FILTER, {"fuel": 4999}) is not step.program
    with pytest.raises(TypeError, match="unknown limits"):
        dataframe.Step(FILTER, functions={})
    with pytest.raises(xpr_rs.XprParseError):
        dataframe.Step("delay >")
    with pytest.raises(ValueError, match="on_error"):
        dataframe.Step(FILTER, on_error="ignore")


def test_a_frame_step_keeps_the_index_labels_of_the_rows_out():
    pd = pytest.importorskip("pandas")
    frame = small().to_pandas()
    frame.index = [10, 11, 12, 13]
    out = dataframe.FrameStep(FILTER)(frame)
    assert list(out.index) == [10, 12] and list(out.columns) == list(frame.columns)
    out = dataframe.FrameStep(PROJECT, "project", on_error="skip")(frame)
    assert list(out.index) == [10, 11, 13]
    assert out["value"].tolist() == [20.0, 50.0, 500 / 60]
    assert isinstance(out, pd.DataFrame)
    # Not booleans: XPR's truthiness (0 is falsy), through xpr-arrow's filter.
    assert list(dataframe.FrameStep("delay - 75")(frame).index) == [11, 12, 13]
    # Columns keep their dtypes; a NaN is a null; no column read is fine.
    frame["late"] = [1.5, float("nan"), 2.0, 3.0]
    out = dataframe.FrameStep("late == null")(frame)
    assert list(out.index) == [11] and out.dtypes.equals(frame.dtypes)
    assert len(dataframe.FrameStep("true")(frame)) == 4


def test_dask_error_counts_add_up_in_this_process_without_a_cluster():
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd

    import xpr_rs.dask

    frame = small().to_pandas()
    ddf = dd.from_pandas(frame, npartitions=2)
    hours, errors = xpr_rs.dask.project(ddf, PROJECT, dtype=float, on_error="skip")
    assert errors.value == 0
    assert hours.compute(scheduler="sync")["value"].tolist() == [20.0, 50.0, 500 / 60]
    assert errors.value == 1
    assert xpr_rs.dask.project(ddf, PROJECT, dtype=float)[1].value == 0  # a count of its own


def test_dask_local_cluster_two_processes_matches_the_single_process_api():
    pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    import dask.dataframe as dd

    import xpr_rs.dask

    table = flights()
    frame = table.to_pandas()
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        ddf = dd.from_pandas(frame, npartitions=8)

        late, errors = xpr_rs.dask.filter(ddf, FILTER, on_error="null")
        got = late.compute()
        n = errors.value
        want = xpr_rs.compile(FILTER).filter_arrow(table).to_pandas()
        assert n == 0 and len(got) == len(want) == 278
        assert got.to_dict("records") == want.to_dict("records")
        assert list(got.index) == sorted(got.index)  # the input's labels, in order
        # Each worker compiled the filter at most once, for all its partitions.
        counts = client.run(lambda: __import__("xpr_rs.dataframe").dataframe.compilations)
        assert len(counts) == 2 and set(counts.values()) <= {0, 1} and sum(counts.values()) >= 1

        hours, errors = xpr_rs.dask.project(ddf, PROJECT, name="hours", dtype=float, on_error="null")
        got = hours.compute()
        n = errors.value
        want = xpr_rs.compile(PROJECT).evaluate_arrow(table, on_error="null").to_pylist()
        assert n == 430
        assert [None if v != v else v for v in got["hours"].tolist()] == want  # NaN: null
        assert got["origin"].tolist() == frame["origin"].tolist()

        hours, errors = xpr_rs.dask.project(ddf, PROJECT, name="hours", dtype=float, on_error="skip")
        got = hours.compute()
        n = errors.value
        assert n == 430 and len(got) == 20_000 - 430

        with pytest.raises(xpr_rs.XprTypeError):
            xpr_rs.dask.project(ddf, PROJECT, dtype=float)[0].compute()
        with pytest.raises(xpr_rs.XprFuelError):
            xpr_rs.dask.filter(ddf, FILTER, partition_fuel=1000)[0].compute()


@pytest.mark.skipif(os.environ.get("XPR_TEST_SPARK") != "1", reason="XPR_TEST_SPARK=1 runs it (needs pyspark, Java 17)")
def test_spark_local_map_in_arrow_matches_the_single_process_api():
    from pyspark.sql import SparkSession

    import xpr_rs.spark

    table = flights()
    # Spark's Python workers run PYSPARK_PYTHON (default: python3 on the
    # PATH), which must have the xpr-rs wheel: this venv's interpreter.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.master("local[2]").appName("xpr").getOrCreate()
    try:
        df = spark.createDataFrame(table.to_pandas()).repartition(4)
        errors = spark.sparkContext.accumulator(0)
        late = df.mapInArrow(xpr_rs.spark.filter(FILTER, on_error="null", errors=errors), df.schema)
        got = sorted(tuple(r) for r in late.collect())
        want = sorted(tuple(r.values()) for r in xpr_rs.compile(FILTER).filter_arrow(table).to_pylist())
        assert got == want and len(got) == 278 and errors.value == 0

        errors = spark.sparkContext.accumulator(0)
        schema = xpr_rs.spark.schema(df.schema, "hours", "double")
        hours = df.mapInArrow(xpr_rs.spark.project(PROJECT, name="hours", on_error="null", errors=errors), schema)
        values = xpr_rs.compile(PROJECT).evaluate_arrow(table, on_error="null").to_pylist()
        key = lambda t: (t[0], t[1], t[2], t[3] is None, t[3] or 0)  # noqa: E731
        got = sorted(((r.date, r.origin, r.destination, r.hours) for r in hours.collect()), key=key)
        rows = zip(table.to_pylist(), values)
        want = sorted(((r["date"], r["origin"], r["destination"], v) for r, v in rows), key=key)
        assert got == want and errors.value == 430
        print(f"spark: {len(got)} rows projected, {errors.value} failed; 278 kept by the filter")
    finally:
        spark.stop()


@pytest.mark.skipif(os.environ.get("XPR_TEST_RAY") != "1", reason="XPR_TEST_RAY=1 runs it (needs ray[data])")
def test_ray_data_map_batches_matches_the_single_process_api():
    import ray

    import xpr_rs.ray

    table = flights()
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        ds = ray.data.from_arrow(table).repartition(4)
        errors = xpr_rs.ray.error_counter()
        late = ds.map_batches(xpr_rs.ray.filter(FILTER, on_error="null", errors=errors), batch_format="pyarrow")
        got = late.to_arrow_refs()
        got = pa.concat_tables(ray.get(got)).to_pylist()
        want = xpr_rs.compile(FILTER).filter_arrow(table).to_pylist()
        key = lambda r: (r["date"], r["origin"], r["destination"])
        assert sorted(got, key=key) == sorted(want, key=key) and errors.value == 0

        errors = xpr_rs.ray.error_counter()
        hours = ds.map_batches(
            xpr_rs.ray.project(PROJECT, name="hours", on_error="null", errors=errors), batch_format="pyarrow"
        )
        got = pa.concat_tables(ray.get(hours.to_arrow_refs()))
        values = xpr_rs.compile(PROJECT).evaluate_arrow(table, on_error="null").to_pylist()
        want = [dict(r, hours=v) for r, v in zip(table.to_pylist(), values)]
        key = lambda r: (r["date"], r["origin"], r["destination"], r["hours"] is None, r["hours"] or 0)
        assert sorted(got.to_pylist(), key=key) == sorted(want, key=key)
        assert errors.value == 430
        print(f"ray: {got.num_rows} rows projected, {errors.value} failed; {len(want)} in")
    finally:
        ray.shutdown()
