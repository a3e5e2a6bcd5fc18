"""evaluate_ndjson and filter_ndjson: straight from bytes."""

import json

import pytest

import xpr_rs
from conftest import shared

DATA = (
    b'{"delay": 75, "distance": 1200, "origin": "SFO"}\n'
    b'{"delay": 5, "distance": 1200, "origin": "LAX", "extra": [1, {"x": null}]}\r\n'
    b"\n"
    b"   \n"
    b'{"delay": 90, "distance": 3000, "origin": "JFK"}'
)


def test_results_per_line_blank_lines_skipped():
    p = xpr_rs.compile("delay > 60 && distance > 1000")
    assert p.evaluate_ndjson(DATA) == [True, False, True]
    assert xpr_rs.compile("{o: origin, d: delay / 2}").evaluate_ndjson(DATA) == [
        {"o": "SFO", "d": 37.5}, {"o": "LAX", "d": 2.5}, {"o": "JFK", "d": 45},
    ]
    assert p.evaluate_ndjson(b"") == []


def test_filter_keeps_truthy_lines_unchanged():
    kept = xpr_rs.compile("delay > 60").filter_ndjson(DATA)
    assert kept == [
        b'{"delay": 75, "distance": 1200, "origin": "SFO"}',
        b'{"delay": 90, "distance": 3000, "origin": "JFK"}',
    ]
    # Truthy, as .filter() in the language: a non-empty string keeps.
    assert len(xpr_rs.compile("origin").filter_ndjson(DATA)) == 3
    assert xpr_rs.compile("origin == 'LAX'").filter_ndjson(DATA) == [DATA.split(b"\r\n")[0].split(b"\n")[1]]


def test_a_broken_line_is_named():
    data = b'{"a": 1}\n{"a": \n'
    with pytest.raises(ValueError, match="^line 2: ") as info:
        xpr_rs.compile("a").evaluate_ndjson(data)
    assert info.value.line == 2
    with pytest.raises(ValueError, match="line 1: trailing characters"):
        xpr_rs.compile("a").evaluate_ndjson(b'{"a": 1} x')
    # Unread fields are still checked to be JSON.
    with pytest.raises(ValueError, match="line 1"):
        xpr_rs.compile("a").evaluate_ndjson(b'{"a": 1, "b": [1,}')


def test_an_evaluation_error_names_its_line():
    with pytest.raises(xpr_rs.XprTypeError) as info:
        xpr_rs.compile("a.upper()").evaluate_ndjson(b'{"a": "x"}\n\n{"a": 2}\n')
    assert info.value.line == 3


def test_records_that_are_no_object_have_no_fields():
    data = b'[1, 2]\n"s"\n3\nnull\n{"a": 1}'
    assert xpr_rs.compile("2").evaluate_ndjson(data) == [2] * 5
    with pytest.raises(xpr_rs.XprReferenceError, match="Unknown identifier 'a'") as info:
        xpr_rs.compile("a").evaluate_ndjson(data)
    assert info.value.line == 1


def test_nested_paths_are_read_from_the_bytes():
    p = xpr_rs.compile("properties.mag > 5 && properties.place != null && geometry.coordinates[2] < 20")
    assert p.paths == [("properties", "mag"), ("properties", "place"), ("geometry", "coordinates")]
    line = b'{"properties": {"mag": 6, "place": "x", "big": [[[1]]]}, "geometry": {"coordinates": [1, 2, 3]}}'
    assert p.evaluate_ndjson(line) == [True]
    # A value on the way that is no object is read whole.
    assert xpr_rs.compile("a.length").evaluate_ndjson(b'{"a": [1, 2]}\n{"a": {"length": 4}}') == [2, 4]


def test_numbers_and_strings_as_json_loads_reads_them():
    line = b'{"v": [1, 1.5, -0.0, 1e300, 12345678901234567890, "\\u00e9\\n", true, null]}'
    got = xpr_rs.compile("v").evaluate_ndjson(line)[0]
    want = json.loads(line)["v"]
    assert got[:4] == want[:4] and got[5:] == want[5:]
    assert got[4] == float(12345678901234567890)


def test_deep_records_are_refused_not_crashed():
    deep = b'{"b": 1, "a": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    with pytest.raises(ValueError):
        xpr_rs.compile("a").evaluate_ndjson(deep)
    # Unread, the same nesting is only checked.
    assert xpr_rs.compile("b").evaluate_ndjson(deep) == [1]


def test_agrees_with_evaluate_on_the_shared_data():
    path = shared("data/earthquakes.ndjson")
    data = path.read_bytes()
    records = [json.loads(line) for line in data.splitlines() if line.strip()]
    for source in ["properties.mag > 5", "{p: properties.place, t: properties.time, c: geometry.coordinates}"]:
        p = xpr_rs.compile(source)
        assert p.evaluate_ndjson(data) == [p.evaluate(r) for r in records] == p.evaluate_many(records)
    flights = shared("data/flights-20k.ndjson").read_bytes()
    rule = xpr_rs.compile("delay > 60 && distance > 1000")
    kept = rule.filter_ndjson(flights)
    assert kept == [line for line in flights.splitlines() if rule.evaluate(json.loads(line))]
    assert len(kept) == 278
