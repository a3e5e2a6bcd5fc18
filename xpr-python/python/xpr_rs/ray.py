"""XPR over Ray datasets (docs/scale-out.md): functions for
``Dataset.map_batches(f, batch_format="pyarrow")``.

>>> import xpr_rs.ray
>>> errors = xpr_rs.ray.error_counter()
>>> late = ds.map_batches(xpr_rs.ray.filter("delay > 60", on_error="null", errors=errors),
...                       batch_format="pyarrow")
>>> late.count(); errors.value          # after the dataset ran: the rows that failed

Ray is imported only by ``error_counter``. Each worker process compiles
the expression once; workers need the ``xpr-rs`` wheel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dataframe import OnError, Step


def filter(
    source: str,
    *,
    on_error: OnError = "fail",
    partition_fuel: int | None = None,
    errors: Any = None,
    **limits: Any,
) -> Callable[[Any], Any]:
    """A ``map_batches`` function (``batch_format="pyarrow"``) keeping the
    rows for which ``source`` is truthy; ``errors`` (``error_counter()``)
    counts the failed rows; ``partition_fuel``: fuel for each batch as a
    whole (``batch_size`` rows)."""
    return Step(source, "filter", on_error=on_error, partition_fuel=partition_fuel, errors=errors, **limits)


def project(
    source: str,
    *,
    name: str = "value",
    on_error: OnError = "fail",
    partition_fuel: int | None = None,
    errors: Any = None,
    **limits: Any,
) -> Callable[[Any], Any]:
    """A ``map_batches`` function appending ``source``'s result as the
    column ``name``."""
    return Step(
        source,
        "project",
        name=name,
        on_error=on_error,
        partition_fuel=partition_fuel,
        errors=errors,
        **limits,
    )


class ErrorCounter:
    """A count of failed rows kept by a Ray actor: picklable, ``add(n)``
    from any worker, ``value`` on the driver."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def add(self, n: int) -> None:
        import ray

        ray.get(self.actor.add.remote(n))

    @property
    def value(self) -> int:
        import ray

        return ray.get(self.actor.value.remote())


def error_counter() -> ErrorCounter:
    """A new ``ErrorCounter`` (starts a tiny actor; needs ``ray.init()``)."""
    import ray

    @ray.remote(num_cpus=0)
    class _Count:
        def __init__(self) -> None:
            self.n = 0

        def add(self, n: int) -> None:
            self.n += n

        def value(self) -> int:
            return self.n

    return ErrorCounter(_Count.remote())
