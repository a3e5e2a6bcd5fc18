"""XPR for Python: a sandboxed expression language, compiled once and
evaluated at native speed.

>>> import xpr_rs
>>> rule = xpr_rs.compile("delay > 60 && distance > 1000")
>>> rule.evaluate({"delay": 75, "distance": 1200, "origin": "SFO"})
True

``compile`` returns an immutable, thread-safe, picklable ``Program``;
``Program.evaluate(dict)`` reads only the parts of the dict the expression
uses, ``evaluate_many``, ``evaluate_ndjson`` and ``filter_ndjson`` process
many records with the GIL released, ``evaluate_arrow`` and ``filter_arrow``
whole pyarrow batches and tables. Every error is an ``XprError``
subclass with ``.kind``, ``.message``, ``.span`` and ``.hint``.
"""

from ._xpr_rs import (
    Program,
    XprAccessError,
    XprArithmeticError,
    XprArityError,
    XprCancelledError,
    XprDateError,
    XprDepthError,
    XprError,
    XprFuelError,
    XprHostError,
    XprLengthError,
    XprMemoryError,
    XprParseError,
    XprReferenceError,
    XprRegexError,
    XprSchemaError,
    XprTimeoutError,
    XprTypeError,
    XprValueError,
    compile,
)

__all__ = [
    "Program",
    "XprAccessError",
    "XprArithmeticError",
    "XprArityError",
    "XprCancelledError",
    "XprDateError",
    "XprDepthError",
    "XprError",
    "XprFuelError",
    "XprHostError",
    "XprLengthError",
    "XprMemoryError",
    "XprParseError",
    "XprReferenceError",
    "XprRegexError",
    "XprSchemaError",
    "XprTimeoutError",
    "XprTypeError",
    "XprValueError",
    "compile",
]


def _restore(source, options):
    """Unpickles a Program: compiles ``source`` again with the ``compile``
    keyword arguments it was made with (host functions included, which
    pickle by reference, or by value with cloudpickle)."""
    return compile(source, **options)
