"""One XPR expression over the partitions of a distributed data frame:
the building blocks of ``xpr_rs.dask``, ``xpr_rs.spark`` and
``xpr_rs.ray`` (docs/scale-out.md).

An engine ships a step to its workers by pickling it. A step carries the
expression's source and limits, not a compiled program: each worker
process compiles it once, on first use, and keeps it in a cache keyed by
source and limits (``compiled``), so a thousand partitions on one worker
compile once. Every partition goes through the Arrow path
(``Program.evaluate_arrow`` / ``filter_arrow``: columnar where it can, the
GIL released) with the same per-row limits as everywhere and, optionally,
a fuel budget for the partition as a whole (``partition_fuel``).

Errors follow ``on_error`` as in ``xpr run --on-error``: ``"fail"`` raises
the first failing row's ``XprError`` (``.row`` its index in the
partition) and fails the engine's job; ``"null"`` gives the row a null
result (a filter drops it); ``"skip"`` drops the row. How many rows
failed reaches the driver through each engine's own channel (a tally
per worker process read by ``Client.run`` for Dask, a Spark accumulator, a
Ray actor): a step calls
``errors.add(n)`` for each partition when it is given an ``errors``
object.

The engines are never imported here: this module needs only pyarrow
(and pandas for ``FrameStep``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from . import Program
from . import compile as _compile

OnError = Literal["fail", "null", "skip"]

#: The ``compile`` keyword arguments a step may carry (host functions are
#: left out: they are not hashable keys; compile a program yourself and
#: call ``evaluate_arrow`` in your own function for those).
LIMITS = ("fuel", "max_memory", "timeout_ms", "max_depth", "seed")

_cache: dict[tuple[str, tuple[tuple[str, Any], ...]], Program] = {}
_cache_lock = threading.Lock()
#: How many programs this process compiled through ``compiled`` (tests
#: read it to check that a worker compiles once).
compilations = 0


def compiled(source: str, limits: dict[str, Any] | None = None) -> Program:
    """The program for ``source`` under ``limits`` (``compile`` keyword
    arguments among ``LIMITS``), compiled on the first call in this
    process and cached after (keyed by source and limits)."""
    global compilations
    limits = dict(limits or {})
    unknown = set(limits) - set(LIMITS)
    if unknown:
        raise TypeError(f"unknown limits {sorted(unknown)}; a step takes {LIMITS}")
    key = (source, tuple(sorted(limits.items())))
    program = _cache.get(key)
    if program is None:
        with _cache_lock:
            program = _cache.get(key)
            if program is None:
                program = _compile(source, **limits)
                _cache[key] = program
                compilations += 1
    return program


_tallies: dict[str, int] = {}


def tally(key: str, n: int = 0) -> int:
    """Adds ``n`` to this process's tally ``key`` and returns it (the
    worker side of ``xpr_rs.dask.ErrorCount``)."""
    with _cache_lock:
        _tallies[key] = _tallies.get(key, 0) + n
        return _tallies[key]


class Step:
    """A filter or a projection of pyarrow record batches, picklable
    (source, limits and policy only), compiling on first use per process.

    ``mode``: ``"filter"`` keeps the rows for which the expression is
    truthy (all columns); ``"project"`` appends the expression's result
    as a column ``name`` (boolean, double or string after the result
    type; arrays and objects as JSON text). ``partition_fuel``: fuel units
    for one call (one partition) as a whole, besides each row's own
    ``fuel``; spent, the call raises ``XprFuelError`` whatever
    ``on_error``. ``errors``: an object with ``add(n)`` (a Spark
    accumulator, ``xpr_rs.ray.error_counter()``), told how many rows of
    each batch failed.
    """

    def __init__(
        self,
        source: str,
        mode: Literal["filter", "project"] = "filter",
        *,
        name: str = "value",
        on_error: OnError = "fail",
        partition_fuel: int | None = None,
        errors: Any = None,
        **limits: Any,
    ) -> None:
        if mode not in ("filter", "project"):
            raise ValueError(f"mode must be 'filter' or 'project', not {mode!r}")
        if on_error not in ("fail", "null", "skip"):
            raise ValueError(f"on_error must be 'fail', 'null' or 'skip', not {on_error!r}")
        self.source = source
        self.mode = mode
        self.name = name
        self.on_error = on_error
        self.partition_fuel = partition_fuel
        self.errors = errors
        self.limits = limits
        compiled(source, limits)  # a syntax error shows on the driver

    @property
    def program(self) -> Program:
        """This process's compiled program (see ``compiled``)."""
        return compiled(self.source, self.limits)

    def apply(self, data: Any) -> tuple[Any, dict[str, Any]]:
        """``data`` (a ``pyarrow.RecordBatch`` or ``Table``) filtered or
        with the column appended, as the same type, and the report of
        ``Program.evaluate_arrow(report=True)`` (``rows``, ``errors``,
        ``error_rows``, ``messages``, ``fuel_used``)."""
        import pyarrow as pa

        program = self.program
        if self.mode == "filter":
            out, report = program.filter_arrow(
                data, on_error=self.on_error, batch_fuel=self.partition_fuel, report=True
            )
        else:
            # Nulls first; "skip" then drops the failed rows from the
            # input too, so the column stays aligned.
            on_error = "null" if self.on_error == "skip" else self.on_error
            values, report = program.evaluate_arrow(
                data, on_error=on_error, batch_fuel=self.partition_fuel, report=True
            )
            if self.on_error == "skip" and report["error_rows"]:
                import numpy

                keep = numpy.ones(data.num_rows, dtype=bool)
                keep[report["error_rows"]] = False
                keep = pa.array(keep)
                data, values = data.filter(keep), values.filter(keep)
            if isinstance(data, pa.Table):
                out = data.append_column(self.name, values)
            else:
                out = pa.RecordBatch.from_arrays(
                    [*data.columns, values], names=[*data.schema.names, self.name]
                )
        if self.errors is not None and report["errors"]:
            self.errors.add(report["errors"])
        return out, report

    def __call__(self, data: Any) -> Any:
        """``apply(data)[0]``: the batch or table out."""
        return self.apply(data)[0]

    def batches(self, batches: Iterable[Any]) -> Iterator[Any]:
        """Each batch of ``batches`` through ``apply``: the shape of
        Spark's ``mapInArrow`` function."""
        for batch in batches:
            yield self(batch)

    def __repr__(self) -> str:
        return f"Step({self.source!r}, {self.mode!r}, on_error={self.on_error!r})"


class FrameStep(Step):
    """A ``Step`` over pandas data frames (Dask partitions). Only the
    columns the expression reads go to Arrow (``Program.free_variables``;
    NaN as null, as ``pyarrow.Table.from_pandas``); the rows out are
    taken from the input frame (a filter: a boolean mask when the
    expression gives booleans, else xpr-arrow's filter on the rows'
    positions), or the input gets the result column (a projection), so
    every column keeps its dtype and index labels. ``apply`` returns ``(frame, report)``; calling it, the
    frame."""

    def apply(self, data: Any) -> tuple[Any, dict[str, Any]]:  # type: ignore[override]
        import numpy
        import pyarrow as pa

        program = self.program
        names = [n for n in program.free_variables if n in data.columns]
        columns = [pa.array(data[n], from_pandas=True) for n in names]
        positions = pa.array(numpy.arange(len(data), dtype=numpy.int64))
        # The positions make the row count (a frame may have no column the
        # expression reads); the program never reads them.
        table = pa.Table.from_arrays([*columns, positions], names=[*names, _ROW])
        if self.mode == "filter":
            on_error = "fail" if self.on_error == "fail" else "null"
            values, report = program.evaluate_arrow(
                table, on_error=on_error, batch_fuel=self.partition_fuel, report=True
            )
            if values.type == pa.bool_():
                # A null (a failed row's) is falsy.
                frame = data[values.fill_null(False).to_numpy(zero_copy_only=False)]
            else:
                # Truthiness of other results as XPR has it: xpr-arrow's
                # filter (the rows run again).
                out, report = program.filter_arrow(
                    table, on_error=self.on_error, batch_fuel=self.partition_fuel, report=True
                )
                frame = data.iloc[out.column(_ROW).to_numpy()]
        else:
            on_error = "null" if self.on_error == "skip" else self.on_error
            values, report = program.evaluate_arrow(
                table, on_error=on_error, batch_fuel=self.partition_fuel, report=True
            )
            frame = data.assign(**{self.name: values.to_numpy(zero_copy_only=False)})
            if self.on_error == "skip" and report["error_rows"]:
                keep = numpy.ones(len(data), dtype=bool)
                keep[report["error_rows"]] = False
                frame = frame.iloc[keep]
        if self.errors is not None and report["errors"]:
            self.errors.add(report["errors"])
        return frame, report

    def meta(self, frame: Any, dtype: Any = None) -> Any:
        """The empty frame a ``map_partitions`` call expects: ``frame``'s
        columns, plus the column ``name`` (of ``dtype``) for a
        projection."""
        meta = frame.iloc[:0].copy()
        if self.mode == "project":
            meta[self.name] = meta.index.to_series().astype(dtype if dtype is not None else "object")
        return meta


#: The column that carries row positions through a FrameStep.
_ROW = "__xpr_row__"
