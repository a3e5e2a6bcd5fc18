"""The conformance suites through the Python API: the project's own cases
(conformance/cases), the official suite (../shared/conformance/xpr-v0.5)
and the edge cases (../shared/cases), each case compiled with
``xpr_rs.compile`` and evaluated with ``Program.evaluate`` on its context
(so every case also checks that reading only the paths a program uses
gives the result the whole context gives). Cases run as the Rust runner
(``cargo run -p conformance``) runs them: no time limits, random seed
0x5eed; an expected error is a substring of the message with its position.
Every case passes but those listed in conformance/known-failures.txt."""

import math
import re

import pytest
import yaml

import xpr_rs
from conftest import REPO, same, shared


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML with YAML 1.2's core schema (as the Rust runner's
    serde-saphyr reads): only true/false are booleans, `1e3` is a
    number, dates stay strings."""


_REPLACED = {
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:timestamp",
}
Yaml12Loader.yaml_implicit_resolvers = {
    first: [r for r in resolvers if r[0] not in _REPLACED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+)$"), list("-+0123456789")
)
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)


def load(directory):
    """Every case of every *.yaml suite in ``directory``: (suite, case)."""
    cases = []
    for path in sorted(directory.glob("*.yaml")):
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=Yaml12Loader)
        for case in doc.get("tests") or []:
            cases.append((doc["suite"], case))
    return cases


def known_failures():
    text = (REPO / "conformance" / "known-failures.txt").read_text(encoding="utf-8")
    known = set()
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if " / " in line:
            suite, name = line.split(" / ", 1)
            known.add((suite.strip(), name.strip()))
    return known


def display(e):
    """The error's text as the Rust runner sees it (`Display`)."""
    return e.message + (f" at position {e.span[0]}" if e.span is not None else "")


def run(case):
    """None when the case passes, else what happened instead."""
    try:
        program = xpr_rs.compile(case["expression"], timeout_ms=math.inf, seed=0x5EED)
        got = program.evaluate(case.get("context") or {})
    except xpr_rs.XprError as e:
        if "error" in case and case["error"] in display(e):
            return None
        return f"error {display(e)!r}"
    if "error" in case:
        return f"expected an error containing {case['error']!r}, got {got!r}"
    if same(got, case.get("expected")):
        return None
    return f"expected {case.get('expected')!r}, got {got!r}"


def check(cases):
    known = known_failures()
    passed = skipped = 0
    failures = []
    for suite, case in cases:
        if case.get("skip"):
            skipped += 1
            continue
        why = run(case)
        if why is None:
            passed += 1
        elif (suite, case["name"]) not in known:
            failures.append(f"{suite} / {case['name']}: {case['expression']}\n    {why}")
    print(f"{passed} passed, {len(failures)} failed, {skipped} skipped")
    assert not failures, "\n".join(failures)
    return passed


def test_own_cases():
    cases = load(REPO / "conformance" / "cases")
    assert cases
    check(cases)


def test_official_suite():
    cases = load(shared("conformance/xpr-v0.5"))
    assert len(cases) > 500
    check(cases)


def test_shared_edge_cases():
    cases = load(shared("cases"))
    assert cases
    check(cases)


def test_yaml_reads_as_yaml_1_2():
    doc = yaml.load("a: [yes, 1e3, 2024-01-15, true, 0x10, .5]", Loader=Yaml12Loader)
    assert doc == {"a": ["yes", 1000.0, "2024-01-15", True, 16, 0.5]}
