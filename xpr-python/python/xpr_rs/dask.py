"""XPR over Dask data frames (docs/scale-out.md): a filter and a
projection by ``map_partitions`` over pandas partitions, through Arrow.

>>> import dask.dataframe as dd, xpr_rs.dask
>>> late, errors = xpr_rs.dask.filter(ddf, "delay > 60 && distance > 1000", on_error="null")
>>> frame, n = dask.compute(late, errors)   # one graph: the rows and the failed-row count

Dask is imported when a function is called, never by ``import xpr_rs``.
Each worker process compiles the expression once (``xpr_rs.dataframe``);
workers need the ``xpr-rs`` wheel installed.
"""

from __future__ import annotations

from typing import Any

from .dataframe import FrameStep, OnError


def _run(ddf: Any, step: FrameStep, meta: Any) -> tuple[Any, Any]:
    import dask
    import dask.dataframe as dd

    def frame(part: Any) -> Any:
        return step.apply(part)

    outs = [dask.delayed(frame)(part) for part in ddf.to_delayed()]
    frames = [dask.delayed(lambda o: o[0])(o) for o in outs]
    counts = [dask.delayed(lambda o: o[1]["errors"])(o) for o in outs]
    return dd.from_delayed(frames, meta=meta, divisions=ddf.divisions), dask.delayed(sum)(counts)


def filter(
    ddf: Any,
    source: str,
    *,
    on_error: OnError = "fail",
    partition_fuel: int | None = None,
    **limits: Any,
) -> tuple[Any, Any]:
    """The rows of the Dask data frame ``ddf`` for which ``source`` is
    truthy, and how many rows failed (a ``dask.delayed`` int; 0 under
    ``"fail"``, which raises instead). Both are lazy: compute them
    together (``dask.compute(frame, errors)``) so each partition is
    evaluated once. ``partition_fuel``: fuel for each partition as a
    whole; ``limits``: ``compile``'s (``fuel`` per row, ...)."""
    step = FrameStep(source, "filter", on_error=on_error, partition_fuel=partition_fuel, **limits)
    return _run(ddf, step, ddf._meta)


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
    after the result type), and how many rows failed (a
    ``dask.delayed`` int). ``"null"``: a failed row's value is null;
    ``"skip"``: the row is dropped."""
    step = FrameStep(
        source, "project", name=name, on_error=on_error, partition_fuel=partition_fuel, **limits
    )
    return _run(ddf, step, step.meta(ddf._meta, dtype))


def partition_filter(source: str, *, on_error: OnError = "fail", **limits: Any) -> FrameStep:
    """A picklable function of one pandas frame, for
    ``ddf.map_partitions(f, meta=ddf._meta)`` when the error count is not
    wanted (``"null"``/``"skip"`` drop failed rows silently)."""
    return FrameStep(source, "filter", on_error=on_error, **limits)
