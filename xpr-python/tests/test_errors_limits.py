"""Errors (one class per kind, attributes, caret rendering), limits,
host functions."""

import math
import sys
import time

import pytest

import xpr_rs

KINDS = {
    "parse": "XprParseError", "type": "XprTypeError", "reference": "XprReferenceError",
    "arity": "XprArityError", "arithmetic": "XprArithmeticError", "access": "XprAccessError",
    "value": "XprValueError", "regex": "XprRegexError", "date": "XprDateError",
    "host": "XprHostError", "fuel": "XprFuelError", "memory": "XprMemoryError",
    "depth": "XprDepthError", "length": "XprLengthError", "timeout": "XprTimeoutError",
    "cancelled": "XprCancelledError", "schema": "XprSchemaError",
}


def test_one_class_per_kind_none_shadowing_a_builtin():
    import builtins

    for name in KINDS.values():
        cls = getattr(xpr_rs, name)
        assert issubclass(cls, xpr_rs.XprError) and cls is not xpr_rs.XprError
        assert not hasattr(builtins, name)
        assert name in xpr_rs.__all__
    assert issubclass(xpr_rs.XprError, Exception)


@pytest.mark.parametrize(
    "source, context, kind",
    [
        ("1 +", {}, "parse"),
        ("'a' - 1", {}, "type"),
        ("nmae", {"name": 1}, "reference"),
        ("round()", {}, "arity"),
        ("x.__proto__", {"x": {}}, "access"),
        ("/(/", {}, "regex"),
        ("parseDate('nope')", {}, "date"),
        ("'x'.repeat(1e9)", {}, "memory"),
        ("let f = (g, n) => g(g, n + 1); f(f, 0)", {}, "depth"),
    ],
)
def test_each_kind_raises_its_class(source, context, kind):
    with pytest.raises(xpr_rs.XprError) as info:
        xpr_rs.compile(source).evaluate(context)
    e = info.value
    assert e.kind == kind, (source, e.kind, e.message)
    assert type(e).__name__ == KINDS[kind]


def test_an_error_has_kind_message_span_hint_and_renders_a_caret():
    with pytest.raises(xpr_rs.XprParseError) as info:
        xpr_rs.compile("delay > 60 and distance > 1000")
    e = info.value
    assert e.kind == "parse"
    assert e.message.startswith("Unexpected token 'and'")
    assert e.span == (11, 14)
    assert e.hint == "XPR writes `&&` for `and`"
    assert str(e) == (
        f"error: {e.message} at position 11\n"
        "  delay > 60 and distance > 1000\n"
        "             ^~~"
    )
    # Spans count characters, not bytes.
    with pytest.raises(xpr_rs.XprTypeError) as info:
        xpr_rs.compile("'é' - x").evaluate({"x": 1})
    assert info.value.span == (0, 7)
    assert info.value.hint.startswith("XPR does not convert implicitly")


def test_budgets_default_lift_and_set():
    busy = "range(n).map(x => x * 2).length"
    assert xpr_rs.compile(busy).evaluate({"n": 10_000}) == 10_000
    with pytest.raises(xpr_rs.XprFuelError, match="Fuel budget exhausted"):
        xpr_rs.compile(busy, fuel=1000).evaluate({"n": 10_000})
    assert xpr_rs.compile(busy, fuel=math.inf).evaluate({"n": 10_000}) == 10_000
    with pytest.raises(xpr_rs.XprMemoryError, match="Memory limit exceeded"):
        xpr_rs.compile("'x'.repeat(n)", max_memory=1000).evaluate({"n": 2000})
    assert xpr_rs.compile("'x'.repeat(n).length", max_memory=math.inf).evaluate({"n": 2000}) == 2000
    deep = "(" * 30 + "1" + ")" * 30
    nested = "[" * 30 + "]" * 30
    assert xpr_rs.compile(deep).evaluate() == 1
    with pytest.raises(xpr_rs.XprDepthError, match="Expression depth limit exceeded"):
        xpr_rs.compile(nested, max_depth=10)
    for bad in (-1, "10", 1.5, math.nan):
        with pytest.raises(ValueError, match="fuel must be"):
            xpr_rs.compile("1", fuel=bad)


def test_the_timeout_counts_cpu_time():
    spin = "range(1e5).map(x => x * 2).filter(x => x % 3 == 0).length"
    p = xpr_rs.compile(f"[{spin}, {spin}, {spin}, {spin}, {spin}]", timeout_ms=1, fuel=math.inf)
    with pytest.raises(xpr_rs.XprTimeoutError, match="Expression timeout exceeded"):
        p.evaluate()
    with pytest.raises(ValueError, match="timeout_ms"):
        xpr_rs.compile("1", timeout_ms=-5)


def test_host_functions_are_called_with_their_arity_and_cost_fuel():
    calls = []

    def tier(total, vip=False):
        calls.append((total, vip))
        return {"name": "gold" if total > 100 else "basic", "vip": vip}

    p = xpr_rs.compile("tier(total).name", functions={"tier": tier})
    assert p.functions == ["tier"]
    assert p.evaluate({"total": 150}) == "gold"
    assert xpr_rs.compile("tier(1, true).vip", functions={"tier": tier}).evaluate() is True
    assert calls == [(150, False), (1, True)]
    with pytest.raises(xpr_rs.XprArityError):
        xpr_rs.compile("tier()", functions={"tier": tier}).evaluate()
    # Each call costs fuel, in proportion to what crosses.
    big = xpr_rs.compile("range(200).map(i => echo(xs)).length", functions={"echo": lambda v: v}, fuel=20_000)
    with pytest.raises(xpr_rs.XprFuelError):
        big.evaluate({"xs": list(range(100))})
    assert big.evaluate({"xs": [1]}) == 200
    # Variadic callables take any count.
    assert xpr_rs.compile("total(1, 2, 3)", functions={"total": lambda *a: sum(a)}).evaluate() == 6


def test_a_host_exception_carries_its_traceback_and_is_the_cause():
    def lookup(code):
        raise KeyError(code)

    p = xpr_rs.compile("1 + lookup('zz')", functions={"lookup": lookup})
    with pytest.raises(xpr_rs.XprHostError) as info:
        p.evaluate()
    e = info.value
    assert e.kind == "host" and e.span == (4, 16)
    assert e.message.startswith("host function 'lookup' raised KeyError: 'zz'\nTraceback")
    assert "in lookup" in e.message
    assert isinstance(e.__cause__, KeyError)
    # A result XPR cannot hold is a host error too.
    with pytest.raises(xpr_rs.XprHostError, match="returned a value XPR cannot hold"):
        xpr_rs.compile("f()", functions={"f": lambda: {1, 2}}).evaluate()


def test_host_functions_are_checked_when_compiling():
    with pytest.raises(TypeError, match="not callable"):
        xpr_rs.compile("f()", functions={"f": 3})
    with pytest.raises(xpr_rs.XprHostError, match="a built-in has that name"):
        xpr_rs.compile("1", functions={"round": round})
    with pytest.raises(xpr_rs.XprHostError, match="not an identifier"):
        xpr_rs.compile("1", functions={"a-b": len})


def test_a_host_function_may_evaluate_another_program():
    inner = xpr_rs.compile("x * 10")
    outer = xpr_rs.compile("inner(3) + 1", functions={"inner": lambda x: inner.evaluate({"x": x})})
    assert outer.evaluate() == 31


def test_a_heavy_program_releases_the_gil_while_it_runs():
    import threading

    p = xpr_rs.compile("range(n).map(x => x * 2).filter(x => x % 3 == 0).length", timeout_ms=math.inf)
    p.evaluate({"n": 100_000})  # now known to be heavy
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0)

    t = threading.Thread(target=ticker)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)  # without a release, the ticker would wait 1 s
    try:
        t.start()
        before = len(ticks)
        for _ in range(5):
            p.evaluate({"n": 100_000})
        during = len(ticks) - before
    finally:
        stop.set()
        sys.setswitchinterval(old)
        t.join()
    assert during > 0
