"""evaluate_arrow and filter_arrow: pyarrow batches and tables through the
Arrow C data interface (skipped without pyarrow; run_tests.sh installs it)."""

import json

import pytest

import xpr_rs

pa = pytest.importorskip("pyarrow")

ROWS = [
    {"delay": 75, "distance": 1200, "origin": "SFO", "route": {"from": "SFO", "legs": [1, 2]}, "tags": ["a"]},
    {"delay": None, "distance": 900, "origin": "JFK", "route": {"from": None, "legs": []}, "tags": None},
    {"delay": 3, "distance": 3000, "origin": None, "route": None, "tags": ["b", "c"]},
]


def batch():
    return pa.RecordBatch.from_pylist(ROWS)


def test_a_rule_over_a_batch_gives_a_boolean_array():
    out = xpr_rs.compile("(delay ?? 0) > 60 && distance > 1000").evaluate_arrow(batch())
    assert isinstance(out, pa.Array) and out.type == pa.bool_()
    assert out.to_pylist() == [True, False, False]


def test_results_match_evaluate_on_the_same_rows_nulls_and_nested_columns_included():
    for source in [
        "delay",
        "origin ?? 'none'",
        "route?.from",
        "route?.legs?.length ?? -1",
        "tags?.join('+')",
        "distance / 2",
        "{o: origin, d: delay}",
    ]:
        program = xpr_rs.compile(source)
        got = program.evaluate_arrow(batch()).to_pylist()
        want = [program.evaluate(row) for row in ROWS]
        # Arrays and objects come back as JSON text.
        got = [json.loads(g) if isinstance(w, (dict, list)) else g for g, w in zip(got, want)]
        assert got == want, source


def test_a_table_is_evaluated_whole_and_filtered_batch_by_batch():
    table = pa.Table.from_batches([batch(), batch()])
    program = xpr_rs.compile("distance >= 1200")
    assert program.evaluate_arrow(table).to_pylist() == [True, False, True] * 2
    kept = program.filter_arrow(table)
    assert isinstance(kept, pa.Table)
    assert kept.column("origin").to_pylist() == ["SFO", None, "SFO", None]
    assert kept.schema == table.schema
    one = program.filter_arrow(batch())
    assert isinstance(one, pa.RecordBatch) and one.num_rows == 2
    assert one.to_pylist() == [ROWS[0], ROWS[2]]


def test_errors_name_their_row_or_follow_the_policy():
    program = xpr_rs.compile("delay > 60")  # null > 60 is a type error
    with pytest.raises(xpr_rs.XprTypeError) as info:
        program.evaluate_arrow(pa.Table.from_batches([batch(), batch()]))
    assert info.value.row == 1
    with pytest.raises(xpr_rs.XprTypeError) as info:
        program.filter_arrow(pa.Table.from_batches([pa.RecordBatch.from_pylist(ROWS[:1]), batch()]))
    assert info.value.row == 2
    assert program.evaluate_arrow(batch(), on_error="null").to_pylist() == [True, None, False]
    assert program.evaluate_arrow(batch(), on_error="skip").to_pylist() == [True, False]
    assert program.filter_arrow(batch(), on_error="null").num_rows == 1
    with pytest.raises(ValueError, match="on_error"):
        program.evaluate_arrow(batch(), on_error="ignore")


def test_pandas_frames_go_through_arrow():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"price": [3.0, 120.0, 55.5], "name": ["pen", "desk", "lamp"]})
    table = pa.Table.from_pandas(frame)
    program = xpr_rs.compile("price > 50")
    assert program.evaluate_arrow(table).to_pylist() == [False, True, True]
    assert program.filter_arrow(table).to_pandas()["name"].tolist() == ["desk", "lamp"]


def test_anything_else_is_refused():
    with pytest.raises((TypeError, ValueError)):
        xpr_rs.compile("1").evaluate_arrow([1, 2])


def test_each_row_is_held_to_the_limits_not_the_batch_to_one_run():
    # 500 rows of a comparison chain: more fuel in all than one run may
    # use, and each row well within it. The batch runs, as evaluate_many
    # would; a row that spends its own limit is still that row's error.
    rule = xpr_rs.compile("a > 1 && a < 100 && a != 7 && a != 8", fuel=40)
    table = pa.table({"a": list(range(500))})
    assert rule.evaluate_arrow(table).to_pylist() == [
        rule.evaluate({"a": a}) for a in range(500)
    ]
    assert len(rule.filter_arrow(table)) == sum(1 < a < 100 and a not in (7, 8) for a in range(500))
    costly = xpr_rs.compile("range(a).sum()", fuel=200)
    with pytest.raises(xpr_rs.XprFuelError) as e:
        costly.evaluate_arrow(pa.table({"a": [1, 2, 10_000]}))
    assert e.value.row == 2


def test_misaligned_buffers_are_copied_before_the_import():
    # Zero-copy deserialisation (Dask's) can leave a buffer at an odd
    # address; the Arrow C data interface would read it in place.
    raw = pa.py_buffer(b"\x00" + pa.array([0, 2, 5, 5], pa.int32()).buffers()[1].to_pybytes())
    offsets = raw.slice(1)
    assert offsets.address % 8 != 0
    strings = pa.Array.from_buffers(pa.string(), 3, [None, offsets, pa.py_buffer(b"abcde")])
    assert strings.to_pylist() == ["ab", "cde", ""]
    program = xpr_rs.compile("s + '!'")
    for data in (pa.table({"s": strings}), pa.RecordBatch.from_arrays([strings], names=["s"])):
        assert program.evaluate_arrow(data).to_pylist() == ["ab!", "cde!", "!"]
        assert program.filter_arrow(data).num_rows == 3
        assert xpr_rs._aligned(data).equals(data)
    aligned = pa.table({"s": ["x"]})
    assert xpr_rs._aligned(aligned) is aligned
