"""Hostile inputs: Python objects that run code or mutate what is being
converted, out-of-range limits, host functions that re-enter the engine.
Every outcome is an exception of a documented type (or a value), never a
panic, a crash or a blow-up. What could crash the interpreter runs in a
child process, so that a crash fails the test instead of the suite."""

import subprocess
import sys
import textwrap
import time

import pytest

import xpr_rs


def run_child(code, timeout=60):
    """Runs ``code`` in a fresh interpreter; returns its completed process."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, timeout=timeout,
    )


def test_an_int_subclass_is_read_by_its_value_whatever_its_float_does():
    # Converting a dict runs no Python code: a big int subclass's
    # __float__ (which mutated the dict being read, a Rust panic) is
    # never called; its value is what counts, as for a small one.
    record = {}

    class Big(int):
        def __float__(self):
            record[f"k{len(record)}"] = 0
            return 1.0

    record["a"] = Big(2**70)
    record["b"] = Big(5)
    assert xpr_rs.compile("x").evaluate({"x": record}) == {"a": 2**70, "b": 5}
    assert xpr_rs.compile("x.a > 1e20").evaluate({"x": record}) is True
    assert xpr_rs.compile("f()", functions={"f": lambda: record}).evaluate() == {"a": 2**70, "b": 5}
    assert list(record) == ["a", "b"]


def test_a_timeout_beyond_any_duration_is_no_panic():
    # 1e300 ms cannot be a Duration: it is held as the longest one.
    for ms in (1e300, 1.7976931348623157e308, 10**30):
        assert xpr_rs.compile("1 + 1", timeout_ms=ms).evaluate() == 2


def test_nested_host_errors_grow_linearly():
    # A host function that evaluates a program whose host function fails,
    # a dozen levels deep: each level's message held the one below twice
    # (its text and its traceback's last line) and the whole cause chain,
    # 2.6 times longer a level (18 MB at 12 levels).
    depth = [0]

    def again():
        depth[0] += 1
        if depth[0] >= 12:
            raise KeyError("bottom")
        return program.evaluate()

    program = xpr_rs.compile("again()", functions={"again": again})
    started = time.monotonic()
    with pytest.raises(xpr_rs.XprHostError) as info:
        program.evaluate()
    assert time.monotonic() - started < 5
    message = str(info.value)
    assert len(message) < 100_000, len(message)
    assert message.count("KeyError: 'bottom'") == 1
    assert "host function 'again' raised XprHostError" in message
    assert "Traceback (most recent call last)" in message
    assert isinstance(info.value.__cause__, xpr_rs.XprHostError)


def test_a_host_function_re_entering_without_end_is_no_crash():
    # Each evaluation nested in a host function took native stack with no
    # bound but Python's recursion limit: a segfault at ~340 levels. Runs
    # nested so now share the core's native ceiling (xpr-vm).
    for where in ("main", "thread"):
        child = run_child(f"""
            import sys, threading, xpr_rs
            def again():
                return program.evaluate()
            program = xpr_rs.compile("again()", functions={{"again": again}})
            def go():
                try:
                    program.evaluate()
                except xpr_rs.XprError as e:
                    print("raised", type(e).__name__)
            if "{where}" == "thread":
                threading.stack_size(2 << 20)  # what the core is calibrated for
                t = threading.Thread(target=go); t.start(); t.join()
            else:
                go()
        """)
        assert child.returncode == 0, (where, child.returncode, child.stderr[-2000:])
        assert child.stdout.startswith("raised Xpr"), (where, child.stdout, child.stderr[-2000:])
