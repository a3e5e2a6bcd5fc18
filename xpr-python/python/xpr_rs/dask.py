"""XPR over Dask data frames (docs/scale-out.md): a filter and a
projection by ``map_partitions`` over pandas partitions, through Arrow.

>>> import dask.dataframe as dd, xpr_rs.dask
>>> late, errors = xpr_rs.dask.filter(ddf, "delay > 60 && distance > 1000", on_error="null")
>>> frame = late.compute()
>>> errors.value                              # the rows that failed, summed over the workers

Dask is imported when a function is called, never by ``import xpr_rs``.
Each worker process compiles the expression once (``xpr_rs.dataframe``);
workers need the ``xpr-rs`` wheel installed.
"""

from __future__ import annotations

from typing import Any

import functools
import uuid

from . import dataframe
from .dataframe import FrameStep, OnError


class ErrorCount:
    """How many rows failed, counted where they failed: ``add(n)`` runs in
    the worker process (a per-process tally keyed by this count's id, in
    ``xpr_rs.dataframe``), ``value`` sums the tallies of every worker of
    the current ``distributed`` client (``Client.run``) and of this
    process (the local schedulers). Read it after the frame is computed.
    Like a Spark accumulator, a retried partition counts again; a worker
    that died takes its tally with it."""

    def __init__(self) -> None:
        self.id = uuid.uuid4().hex

    def add(self, n: int) -> None:
        dataframe.tally(self.id, n)

    @property
    def value(self) -> int:
        here = dataframe.tally(self.id)
        try:
            from distributed import get_client

            client = get_client()
        except (ImportError, ValueError):
            return here
        read = functools.partial(dataframe.tally, self.id)
        return here + sum(client.run(read).values())

    def __repr__(self) -> str:
        return f"ErrorCount({self.id!r})"


def filter(
    ddf: Any,
    source: str,
    *,
    on_error: OnError = "fail",
    partition_fuel: int | None = None,
    **limits: Any,
) -> tuple[Any, Any]:
    """The rows of the Dask data frame ``ddf`` for which ``source`` is
    truthy (lazy, from ``map_partitions``), and an ``ErrorCount`` whose
    ``value``, once the frame is computed, is how many rows failed (0
    under ``"fail"``, which raises instead). ``partition_fuel``: fuel for each partition as a
    whole; ``limits``: ``compile``'s (``fuel`` per row, ...)."""
    errors = ErrorCount()
    step = FrameStep(
        source, "filter", on_error=on_error, partition_fuel=partition_fuel, errors=errors, **limits
    )
    return ddf.map_partitions(step, meta=ddf._meta), errors


def project(
    ddf: Any,
    source: str,
    *,
    name: str = "value",
    dtype: Any = None,
    on_error: OnError = "fail",
    partition_fuel: int | None = None,
    **limits: Any,
) -> tuple[Any, Any]:
    """``ddf`` with the column ``name``, ``source``'s result on each row
    (``dtype`` for Dask's metadata: ``bool``, ``float`` or ``object``
    after the result type), and an ``ErrorCount`` of the rows that
    failed. ``"null"``: a failed row's value is null;
    ``"skip"``: the row is dropped."""
    errors = ErrorCount()
    step = FrameStep(
        source,
        "project",
        name=name,
        on_error=on_error,
        partition_fuel=partition_fuel,
        errors=errors,
        **limits,
    )
    return ddf.map_partitions(step, meta=step.meta(ddf._meta, dtype)), errors


def partition_filter(source: str, *, on_error: OnError = "fail", **limits: Any) -> FrameStep:
    """A picklable function of one pandas frame, for
    ``ddf.map_partitions(f, meta=ddf._meta)`` when the error count is not
    wanted (``"null"``/``"skip"`` drop failed rows silently)."""
    return FrameStep(source, "filter", on_error=on_error, **limits)
