"""Shared helpers: where the repository and the shared suites are."""

import os
import pathlib

import pytest

#: The repository's root (xpr-python's parent).
REPO = pathlib.Path(__file__).resolve().parents[2]
#: The shared suites and data, beside the checkout.
SHARED = REPO.parent / "shared"


def shared(sub):
    """``SHARED / sub``; skips the test when it is absent, fails when
    XPR_REQUIRE_SHARED=1."""
    path = SHARED / sub
    if not path.exists():
        message = f"{path} not found (the shared suites live beside the checkout)"
        if os.environ.get("XPR_REQUIRE_SHARED") == "1":
            pytest.fail(message + " and XPR_REQUIRE_SHARED=1")
        pytest.skip(message)
    return path


def same(a, b):
    """Deep equality as the Rust conformance runner compares: numbers as
    doubles, bool apart from numbers, object key order ignored."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b
