"""Type stubs of the extension module xpr_rs._xpr_rs (re-exported by xpr_rs)."""

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, final

#: What an evaluation returns: JSON-like Python values (an integral number
#: below 1e21 in magnitude as int, as json.loads reads it).
Value = None | bool | int | float | str | list[Any] | dict[str, Any]

def compile(
    source: str,
    *,
    fuel: int | float | None = None,
    max_memory: int | float | None = None,
    timeout_ms: int | float | None = None,
    max_depth: int | float | None = None,
    functions: Mapping[str, Callable[..., Any]] | None = None,
    seed: int | None = None,
) -> Program:
    """Compiles ``source`` once.

    Limits (``None``: the default; ``math.inf``: no limit): ``fuel`` units
    per evaluation (default 10,000,000), ``max_memory`` bytes per
    evaluation (default 64 MiB), ``timeout_ms`` CPU milliseconds per
    evaluation (default 100), ``max_depth`` nesting of the expression
    (default 50). ``functions`` maps names to Python callables the
    expression may call (with the GIL held; a call costs fuel; an
    exception becomes an ``XprHostError``; a callable may evaluate
    programs, nested up to about 50 deep, beyond which the innermost
    raises ``XprDepthError``). ``seed`` fixes ``random()``.

    Raises an ``XprError`` subclass when ``source`` does not compile.
    """

@final
class Program:
    """A compiled expression: immutable, thread-safe, picklable."""

    @property
    def source(self) -> str:
        """The expression's source text."""
    @property
    def free_variables(self) -> list[str]:
        """The context fields read as values, in order of first use."""
    @property
    def functions(self) -> list[str]:
        """The built-in and host functions called by name."""
    @property
    def paths(self) -> list[tuple[str, ...]]:
        """The context paths read (``("properties", "mag")``): only these
        parts of a record are converted."""
    def disasm(self) -> str:
        """The bytecode listing."""
    def evaluate(self, context: Mapping[str, Any] | None = None) -> Value:
        """Evaluates against ``context`` (a dict), reading only the paths
        the expression uses (``properties.mag`` converts that one value;
        a ``str`` is read in place, not copied). The GIL is kept for a
        small evaluation and released while the VM runs once one
        evaluation of the program has used 20,000 fuel units. Raises an
        ``XprError`` subclass; ``TypeError`` or ``ValueError`` for a
        context value XPR cannot hold (``OverflowError`` for an int
        beyond the doubles)."""
    def evaluate_many(self, contexts: Iterable[Mapping[str, Any]]) -> list[Value]:
        """Evaluates against each context, in chunks with the GIL released
        while they run. The first error is raised, with ``.index``."""
    def evaluate_ndjson(self, data: bytes) -> list[Value]:
        """Evaluates against each line of NDJSON ``data`` (blank lines
        skipped), with the GIL released. A line that is not JSON raises
        ``ValueError``, an evaluation error an ``XprError``, each with
        ``.line`` (1-based)."""
    def filter_ndjson(self, data: bytes) -> list[bytes]:
        """The lines of NDJSON ``data`` for which the expression is truthy,
        unchanged but for their line ending. Errors as ``evaluate_ndjson``."""
    def evaluate_arrow(
        self,
        data: Any,
        *,
        on_error: Literal["fail", "null", "skip"] = "fail",
        batch_fuel: int | None = None,
        report: bool = False,
    ) -> Any:
        """Evaluates on every row of ``data`` (a ``pyarrow.RecordBatch`` or
        ``pyarrow.Table``, or any object with ``__arrow_c_array__`` or
        ``__arrow_c_stream__``; columns are the variables, struct columns
        objects, list columns arrays). Returns a ``pyarrow.Array``: boolean,
        double or string after the results' type (arrays, objects and mixed
        types as JSON text). ``on_error``: ``"fail"`` raises the first
        error with ``.row``; ``"null"`` gives a null; ``"skip"`` leaves the
        row out. ``batch_fuel``: fuel units for the whole call (default:
        what its rows may use one by one); spent, the call raises
        ``XprFuelError`` (``.row`` None) whatever ``on_error``.
        ``report=True`` returns ``(array, report)``, ``report`` a dict:
        ``rows``, ``errors`` (how many rows failed), ``error_rows``,
        ``messages`` (each error's ``str()``), ``fuel_used``."""
    def filter_arrow(
        self,
        data: Any,
        *,
        on_error: Literal["fail", "null", "skip"] = "fail",
        batch_fuel: int | None = None,
        report: bool = False,
    ) -> Any:
        """The rows for which the expression is truthy: a
        ``pyarrow.RecordBatch`` for a batch, a ``pyarrow.Table`` for a
        table. ``on_error``: ``"fail"`` raises with ``.row``; ``"null"``
        and ``"skip"`` drop the row. ``batch_fuel`` and ``report`` as in
        ``evaluate_arrow`` (the fuel shared by a table's batches)."""
    def __reduce__(self) -> tuple[Callable[..., Program], tuple[str, dict[str, Any]]]: ...
    def __copy__(self) -> Program: ...
    def __deepcopy__(self, memo: Any) -> Program: ...

class XprError(Exception):
    """An XPR error; ``str()`` is the message with a caret under the source."""

    #: The error kind: "parse", "type", "reference", "fuel", ...
    kind: str
    #: The message in the spec's words, without the position.
    message: str
    #: (start, end) in characters of the source, or None.
    span: tuple[int, int] | None
    #: How to fix it, when known.
    hint: str | None

class XprParseError(XprError): ...
class XprTypeError(XprError): ...
class XprReferenceError(XprError): ...
class XprArityError(XprError): ...
class XprArithmeticError(XprError): ...
class XprAccessError(XprError): ...
class XprValueError(XprError): ...
class XprRegexError(XprError): ...
class XprDateError(XprError): ...
class XprHostError(XprError): ...
class XprFuelError(XprError): ...
class XprMemoryError(XprError): ...
class XprDepthError(XprError): ...
class XprLengthError(XprError): ...
class XprTimeoutError(XprError): ...
class XprCancelledError(XprError): ...
class XprSchemaError(XprError): ...
