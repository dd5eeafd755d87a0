"""Typed results: one lossless dict form keyed by ``kind``, a registry of kinds, and ``+``.

Every benchmark produces frozen dataclasses (error counts, DER components, turn metrics,
shares). This module gives them one way to become plain data and come back:

- a result type is registered under a ``kind`` string, either by subclassing
  :class:`Result` (``class Share(Result, kind="core.share")``) or, for a type that keeps a
  report-shaped ``to_dict`` of its own, with the :func:`register` decorator;
- :func:`to_dict` writes ``{"kind": ..., <every field>}``: numbers and strings as they are,
  tuples and numpy arrays as lists, nested results as their own dicts (with their kind);
- :func:`from_dict` reads such a dict back into the registered type, decoding each field by
  its annotation (a list becomes the tuple or the ``NDArray`` the field declares) and
  running the constructor, so ``__post_init__`` checks the invariants again.

``from_dict(to_dict(x))`` equals ``x`` for every registered type; the property test in
``tests/core/test_results.py`` checks it for each kind, and fails when a new kind has no
example there. The dict form is JSON-ready except for non-finite floats, which
:mod:`speecheval.core.canonical_json` refuses when it writes the file.

:class:`FieldwiseSum` gives ``+`` to results that add up over samples, so ``sum(per_sample)``
is the corpus value.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import Field, fields, replace
from typing import (
    Any,
    ClassVar,
    Literal,
    Protocol,
    Self,
    TypeVar,
    get_args,
    get_origin,
    runtime_checkable,
)

from .errors import InputError

KIND_KEY = "kind"

_REGISTRY: dict[str, type] = {}

T = TypeVar("T")


@runtime_checkable
class Reported(Protocol):
    """A result with a file shape: the dict its family's report writer puts in a file.

    The file shape is what a reader of ``unified.json``, ``report.json`` or ``run.json``
    sees: rounded where the report rounds, with derived values beside the counts and
    without the internals a lossless :func:`to_dict` keeps. Every family names it
    ``report_dict()`` (one name, so a writer never guesses which method to call); the
    lossless form stays :func:`to_dict`. A writer turns typed results into dicts through
    this method and nowhere else.
    """

    def report_dict(self) -> dict[str, Any]:
        """The dict a report file holds for this result."""
        ...


class ResultDecodeError(InputError):
    """A result dict that does not describe a registered result (names the kind and field)."""


def _check_kind(kind: str, cls: type) -> None:
    if not kind or kind != kind.strip():
        raise ValueError(f"result kind must be a non-empty string without spaces: {kind!r}")
    known = _REGISTRY.get(kind)
    if known is not None and known.__qualname__ != cls.__qualname__:
        raise ValueError(f"result kind {kind!r} is already taken by {known.__qualname__}")


def register(kind: str) -> Callable[[type[T]], type[T]]:
    """Class decorator: register a frozen dataclass as the result type of ``kind``.

    Use it above ``@dataclass`` on a type that cannot subclass :class:`Result` (one with a
    ``to_dict`` of its own that reports derived values); its dict form is then
    ``results.to_dict(x)``.
    """

    def decorate(cls: type[T]) -> type[T]:
        _check_kind(kind, cls)
        _require_result_dataclass(cls)
        cls.result_kind = kind  # type: ignore[attr-defined]
        _REGISTRY[kind] = cls
        return cls

    return decorate


class Result:
    """Base of frozen dataclass results with :meth:`to_dict` and :meth:`from_dict`.

    ``class Share(Result, kind="core.share")`` registers the kind. ``_derived`` names
    properties written beside the fields for readers of the file (``value`` of a share);
    they are not read back: :meth:`from_dict` recomputes them.
    """

    result_kind: ClassVar[str]
    _derived: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, kind: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if kind is not None:
            # fields are checked on first use: @dataclass runs after this hook
            _check_kind(kind, cls)
            cls.result_kind = kind
            _REGISTRY[kind] = cls

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": ..., field: value, ...}``, JSON-ready (see the module docstring)."""
        return to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The result ``data`` describes; its kind must be this class's (or a subclass's)."""
        kind = data.get(KIND_KEY) if isinstance(data, Mapping) else None
        found = _REGISTRY.get(kind) if isinstance(kind, str) else None
        if found is None or not issubclass(found, cls):
            raise ResultDecodeError(f"expected a result of kind {cls.result_kind!r}, got "
                                    f"{kind!r}")
        result: Self = from_dict(data)
        return result


def registered_kinds() -> dict[str, type]:
    """Every registered kind and its type (the modules that define them must be imported)."""
    return dict(sorted(_REGISTRY.items()))


def _require_result_dataclass(cls: type) -> None:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"{cls.__qualname__} must be a frozen dataclass to be a result")
    if any(field.name == KIND_KEY for field in fields(cls)):
        raise TypeError(f"{cls.__qualname__} has a field named {KIND_KEY!r}, which the dict "
                        "form uses for the result type")


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """Resolved annotations of a result dataclass's init fields (computed once per type)."""
    if cls not in _HINTS:
        _require_result_dataclass(cls)
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = {field.name: hints[field.name] for field in fields(cls) if field.init}
    return _HINTS[cls]


def _kind_of(value: object) -> str | None:
    kind = getattr(type(value), "result_kind", None)
    return kind if isinstance(kind, str) and _REGISTRY.get(kind) is type(value) else None


def to_dict(result: object) -> dict[str, Any]:
    """The lossless dict form of a registered result.

    >>> from speecheval.core.share import Share
    >>> to_dict(Share(1, 2, (0.25, 0.75), "wilson"))
    {'kind': 'core.share', 'count': 1, 'n': 2, 'interval': [0.25, 0.75], 'method': 'wilson', \
'confidence': 0.95, 'value': 0.5}
    """
    kind = _kind_of(result)
    if kind is None:
        raise TypeError(f"{type(result).__qualname__} is not a registered result type")
    out: dict[str, Any] = {KIND_KEY: kind}
    for name in _hints(type(result)):
        out[name] = _encode(getattr(result, name))
    for name in getattr(result, "_derived", ()):
        out[name] = _encode(getattr(result, name))
    return out


def _numpy() -> Any:
    """numpy when something has imported it, else ``None``: no value is an array before
    then, and a result of counts alone (a WER) need not pay numpy's import."""
    return sys.modules.get("numpy")


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    numpy = _numpy()
    if numpy is not None and isinstance(value, numpy.ndarray | numpy.generic):
        return value.tolist() if isinstance(value, numpy.ndarray) else value.item()
    if _kind_of(value) is not None:
        return to_dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: _encode(getattr(value, name)) for name in _hints(type(value))}
    if isinstance(value, tuple | list):
        return [_encode(item) for item in value]
    if isinstance(value, Mapping):
        bad = next((key for key in value if not isinstance(key, str)), None)
        if bad is not None:
            raise TypeError(f"result mappings need string keys, got {bad!r}")
        return {key: _encode(item) for key, item in value.items()}
    raise TypeError(f"cannot write {type(value).__qualname__} in a result")


def from_dict(data: Mapping[str, Any]) -> Any:
    """The registered result that ``data`` (from :func:`to_dict`) describes.

    >>> from speecheval.core.share import Share
    >>> from_dict({"kind": "core.share", "count": 3, "n": 10, "interval": [0.1, 0.6],
    ...            "method": "wilson", "confidence": 0.95}).value
    0.3
    """
    if not isinstance(data, Mapping):
        raise ResultDecodeError(f"a result must be a mapping, got {type(data).__name__}")
    kind = data.get(KIND_KEY)
    cls = _REGISTRY.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ResultDecodeError(f"unknown result kind {kind!r}")
    return _build(cls, data, str(kind))


def _build(cls: type, data: Mapping[str, Any], where: str) -> Any:
    hints = _hints(cls)
    derived = set(getattr(cls, "_derived", ()))
    unknown = sorted(set(data) - set(hints) - derived - {KIND_KEY})
    if unknown:
        raise ResultDecodeError(f"{where}: unknown field {unknown[0]!r}")
    missing = [field.name for field in fields(cls) if field.init and field.name not in data
               and field.default is dataclasses.MISSING
               and field.default_factory is dataclasses.MISSING]
    if missing:
        raise ResultDecodeError(f"{where}: missing field {missing[0]!r}")
    values = {name: _decode(data[name], hint, f"{where}.{name}")
              for name, hint in hints.items() if name in data}
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        raise ResultDecodeError(f"{where}: {exc}") from None


def _decode(value: Any, hint: Any, where: str) -> Any:
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any or hint is object:
        return value
    if origin in (typing.Union, types.UnionType):
        return _decode_union(value, args, where)
    if origin is Literal:
        if value not in args:
            raise ResultDecodeError(f"{where}: {value!r} is not one of {list(args)}")
        return value
    if origin is ClassVar:
        return value
    if hint is type(None):
        return _expect(value, value is None, "null", where)
    if hint in (bool, str):
        return _expect(value, isinstance(value, hint), hint.__name__, where)
    if hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return _expect(value, ok, "an integer", where)
    if hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return float(_expect(value, ok, "a number", where))
    numpy = _numpy()
    if numpy is not None and origin is numpy.ndarray:
        dtype = get_args(args[1])[0] if len(args) > 1 and get_args(args[1]) else None
        _expect(value, isinstance(value, list), "a list (array)", where)
        return numpy.asarray(value, dtype=dtype)
    if origin in (tuple, list):
        _expect(value, isinstance(value, list | tuple), "a list", where)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if len(value) != len(args):
                raise ResultDecodeError(f"{where}: expected {len(args)} items, got {len(value)}")
            return tuple(_decode(v, h, f"{where}[{i}]")
                         for i, (v, h) in enumerate(zip(value, args, strict=True)))
        item_hint = args[0] if args else Any
        items = [_decode(v, item_hint, f"{where}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin in (dict, Mapping) or hint is dict:
        _expect(value, isinstance(value, Mapping), "a mapping", where)
        item_hint = args[1] if len(args) == 2 else Any
        return {key: _decode(item, item_hint, f"{where}.{key}") for key, item in value.items()}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        _expect(value, isinstance(value, Mapping), "a mapping", where)
        if KIND_KEY in value:
            result = from_dict(value)
            return _expect(result, isinstance(result, hint), hint.__qualname__, where)
        return _build(hint, value, where)
    raise TypeError(f"{where}: cannot read a field annotated {hint!r}")


def _decode_union(value: Any, args: tuple[Any, ...], where: str) -> Any:
    """``X | None`` decodes as X unless null; a union of results decodes by kind."""
    if value is None and type(None) in args:
        return None
    options = [arg for arg in args if arg is not type(None)]
    if len(options) == 1:
        return _decode(value, options[0], where)
    if isinstance(value, Mapping) and KIND_KEY in value:
        result = from_dict(value)
        if any(isinstance(option, type) and isinstance(result, option) for option in options):
            return result
    for option in options:  # plain values: the first annotation that accepts the value
        try:
            return _decode(value, option, where)
        except ResultDecodeError:
            continue
    raise ResultDecodeError(f"{where}: {value!r} matches none of {options}")


def _expect(value: T, ok: bool, what: str, where: str) -> T:
    if not ok:
        raise ResultDecodeError(f"{where}: expected {what}, got {value!r}")
    return value


class FieldwiseSum:
    """Mixin for a frozen dataclass whose ``+`` combines every field of both operands.

    Counts, error tallies and timing pools all add the same way: every field of the two
    operands is combined and the constructor (with its ``__post_init__`` invariants)
    checks the result. Writing that ``__add__`` by hand repeats each field name three
    times and lets a new field be forgotten; inheriting it from one place cannot.

    Numbers and tuples use their own ``+`` (tuples concatenate), numpy arrays are
    concatenated, and fields named in ``_kept_fields`` are taken from the left operand (a
    subclass checks beforehand that they agree where that matters). ``0 + x`` is ``x`` so
    that ``sum()`` needs no start value.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Tally(FieldwiseSum):
    ...     label: str
    ...     hits: int
    ...     items: tuple[str, ...]
    ...     _kept_fields = frozenset({"label"})
    >>> sum([Tally("x", 1, ("a",)), Tally("y", 2, ("b",))])
    Tally(label='x', hits=3, items=('a', 'b'))
    >>> Tally("x", 1, ()) + 1
    Traceback (most recent call last):
    ...
    TypeError: unsupported operand type(s) for +: 'Tally' and 'int'
    """

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    _kept_fields: ClassVar[frozenset[str]] = frozenset()

    def __add__(self, other: object) -> Self:
        if type(other) is not type(self):
            return NotImplemented
        return self._add_fields(other)

    def __radd__(self, other: object) -> Self:
        """Let ``sum()`` start from its default ``0``."""
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self
        return NotImplemented

    def _add_fields(self, other: Self) -> Self:
        """A new instance whose fields combine ``self``'s and ``other``'s (see the class)."""
        combined: dict[str, Any] = {}
        for field in fields(self):
            left, right = getattr(self, field.name), getattr(other, field.name)
            if field.name in self._kept_fields:
                combined[field.name] = left
            elif (numpy := _numpy()) is not None and isinstance(left, numpy.ndarray):
                combined[field.name] = numpy.concatenate([left, right])
            else:
                combined[field.name] = left + right
        return replace(self, **combined)

