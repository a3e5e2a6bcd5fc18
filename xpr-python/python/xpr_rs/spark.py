"""XPR over Spark data frames (docs/scale-out.md): functions for
``DataFrame.mapInArrow``.

>>> import xpr_rs.spark
>>> errors = spark.sparkContext.accumulator(0)
>>> late = df.mapInArrow(xpr_rs.spark.filter("delay > 60", on_error="null", errors=errors), df.schema)
>>> late.count(); errors.value          # after an action: the rows that failed

PySpark is never imported here: the functions only see pyarrow batches.
Each Python worker compiles the expression once; workers need the
``xpr-rs`` wheel (and pyarrow, which ``mapInArrow`` needs anyway).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .dataframe import OnError, Step

Batches = Callable[[Iterable[Any]], Iterator[Any]]


def filter(
    source: str,
    *,
    on_error: OnError = "fail",
    partition_fuel: int | None = None,
    errors: Any = None,
    **limits: Any,
) -> Batches:
    """A ``mapInArrow`` function keeping the rows for which ``source`` is
    truthy (use the input's schema: ``df.mapInArrow(f, df.schema)``).
    ``errors``: a Spark accumulator (``sc.accumulator(0)``) that counts the
    failed rows. ``partition_fuel``: fuel for each Arrow batch as a whole
    (Spark hands a partition over in batches of
    ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows)."""
    return Step(
        source, "filter", on_error=on_error, partition_fuel=partition_fuel, errors=errors, **limits
    ).batches


def project(
    source: str,
    *,
    name: str = "value",
    on_error: OnError = "fail",
    partition_fuel: int | None = None,
    errors: Any = None,
    **limits: Any,
) -> Batches:
    """A ``mapInArrow`` function appending ``source``'s result as the
    column ``name``: the output schema is the input's plus that field
    (``BooleanType``, ``DoubleType`` or ``StringType`` after the result
    type; ``schema(df.schema, name, "double")`` builds it)."""
    return Step(
        source,
        "project",
        name=name,
        on_error=on_error,
        partition_fuel=partition_fuel,
        errors=errors,
        **limits,
    ).batches


def schema(base: Any, name: str, type_name: str) -> Any:
    """``base`` (a ``StructType``) with a nullable field ``name`` of
    ``type_name`` (``"boolean"``, ``"double"`` or ``"string"``)."""
    from pyspark.sql import types

    kinds = {"boolean": types.BooleanType(), "double": types.DoubleType(), "string": types.StringType()}
    return types.StructType([*base.fields, types.StructField(name, kinds[type_name], True)])
