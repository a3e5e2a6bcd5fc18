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


def _aligned(data):
    """``data`` as ``evaluate_arrow`` and ``filter_arrow`` may import it:
    a pyarrow ``RecordBatch`` or ``Table`` whose buffers do not all start
    on an 8-byte boundary (as after zero-copy deserialisation from a
    network frame, e.g. by Dask) is copied column by column, since the
    Arrow C data interface reads offsets and values in place; anything
    else is returned as it is."""
    pa = __import__("sys").modules.get("pyarrow")
    if pa is None:
        return data
    if isinstance(data, pa.RecordBatch):
        arrays = data.columns
    elif isinstance(data, pa.Table):
        arrays = [chunk for column in data.columns for chunk in column.chunks]
    else:
        return data
    if all(_buffers_aligned(a) for a in arrays):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.RecordBatch.from_arrays([_copy(pa, a) for a in arrays], schema=data.schema)
    columns = [pa.chunked_array([_copy(pa, c) for c in col.chunks], col.type) for col in data.columns]
    return pa.Table.from_arrays(columns, schema=data.schema)


def _buffers_aligned(array):
    return all(b is None or b.address % 8 == 0 for b in array.buffers())


def _copy(pa, array):
    """``array`` in buffers of pyarrow's own allocation (64-byte aligned)
    when one of its buffers is misaligned."""
    if _buffers_aligned(array):
        return array
    import numpy

    return array.take(pa.array(numpy.arange(len(array), dtype=numpy.int64)))
