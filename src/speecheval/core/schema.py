"""Every file speecheval reads: JSON or YAML, duplicate keys refused, line numbers kept,
validated into a pydantic model whose unknown keys are errors.

Why one loader: a typo in a limit (``max_stop_msx: 200``) or a key written twice must
not silently fall back to a default, and the error must say where, in one line, as every
other input error does::

    scenario.yaml: turns[1].start.delay_ms (line 14): must be a number, got 'soon'
    sample 17: manifest.yaml: samples[3].audio (line 22): is required

Reading is :func:`load_document` (JSON or YAML by suffix, or :func:`parse_document` for
text): it gives plain JSON values plus a way to find the line of any key or list item.
Validation is :func:`validate` into a :class:`Schema` subclass (pydantic v2,
``extra="forbid"``, strict types, frozen, finite floats); :func:`load` does both.
Validation runs in pydantic's JSON mode, so a list is accepted where a tuple is declared
and a string where a ``Path`` is, exactly as they can be written in a file, while a
string is never taken for a number nor a number for a boolean.

Importing this module imports pydantic (about 0.1 s): import it, and the modules that
define schemas, inside the command that reads the file, not at CLI start-up.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import UnionType
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import InputError
from .log import get_logger

_log = get_logger(__name__)

Format = Literal["json", "yaml"]
KeyPath = tuple[str | int, ...]
SUFFIXES: dict[str, Format] = {".json": "json", ".yaml": "yaml", ".yml": "yaml"}

M = TypeVar("M", bound=BaseModel)


class Schema(BaseModel):
    """Base of every file schema: unknown keys refused, strict types, frozen, finite floats.

    Validators that find a bad value raise ``ValueError("must be ...")``; the message is
    shown after the key path and line.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False,
                              validate_default=True)


class SchemaError(InputError):
    """A value :func:`validate` refused: the one-line :class:`InputError`, and apart from
    it the key path of the value (``key_path``) and the problem alone (``detail``), for a
    caller that names the value its own way (``-o key`` rather than ``options.key``)."""

    def __init__(self, problem: str, *, path: object | None = None,
                 sample_id: str | None = None, key_path: KeyPath = (),
                 detail: str = "") -> None:
        super().__init__(problem, path=path, sample_id=sample_id)
        self.key_path = key_path
        self.detail = detail or problem


# --- reading ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Document:
    """A parsed file: plain JSON values and the line of every key and list item.

    ``line(("turns", 0, "start"))`` is the 1-based line of that key (of that list item for
    an index, of the first value for ``()``); for a path that does not exist, the line of
    its nearest existing ancestor.
    """

    path: Path | None
    data: Any
    text: str
    format: Format
    _yaml_lines: dict[KeyPath, int] | None = field(default=None, repr=False)

    @cached_property
    def _lines(self) -> dict[KeyPath, int]:
        if self._yaml_lines is not None:
            return self._yaml_lines
        return _JsonLines(self.text, self.path).scan()  # JSON: only when an error needs it

    def line(self, where: KeyPath) -> int | None:
        lines = self._lines
        for end in range(len(where), -1, -1):
            if where[:end] in lines:
                return lines[where[:end]]
        return None


def load_document(path: str | Path, *, what: str = "file",
                  formats: Sequence[Format] = ("json", "yaml")) -> Document:
    """Read ``path`` as JSON (``.json``) or YAML (``.yaml``, ``.yml``); a missing or
    unreadable file, a syntax error or a repeated key is an :class:`InputError`."""
    source = Path(path)
    fmt = SUFFIXES.get(source.suffix.lower())
    if fmt is None or fmt not in formats:
        allowed = ", ".join(s for s, f in SUFFIXES.items() if f in formats)
        raise InputError(f"{what} must be a {allowed} file", path=source)
    try:
        text = source.read_text(encoding="utf-8-sig")  # a BOM is dropped
        _log.debug("read %s %s", what, source)
    except FileNotFoundError:
        raise InputError(f"{what} is missing", path=source) from None
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", path=source) from exc
    except UnicodeDecodeError:
        raise InputError(f"{what} is not UTF-8 text", path=source) from None
    return parse_document(text, fmt, path=source, what=what)


MAX_DEPTH = 100
"""Levels of lists and mappings a document may nest. No file speecheval reads needs more
than a handful; a deeper one would only exhaust the recursion of a later step (the line
finder, validation), a traceback instead of an error."""


def parse_document(text: str, fmt: Format, *, path: str | Path | None = None,
                   what: str = "file") -> Document:
    """Parse ``text``; ``path`` and ``what`` only name the file in error messages."""
    source = None if path is None else Path(path)
    document = _parse_json(text, source, what) if fmt == "json" else _parse_yaml(text, source,
                                                                                 what)
    _check_depth(document.data, source, fmt)
    return document


def _check_depth(data: Any, source: Path | None, fmt: Format) -> None:
    """Refuse data nested more than :data:`MAX_DEPTH` levels (a YAML structure that
    contains itself nests without end). Iterative, so that it cannot overflow itself; a
    list or mapping reached again (a YAML alias) is walked again only when reached deeper."""
    deepest: dict[int, int] = {}
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if not isinstance(value, dict | list) or deepest.get(id(value), 0) >= depth:
            continue
        if depth > MAX_DEPTH:
            raise InputError(f"not valid {fmt.upper()}: nested more than {MAX_DEPTH} levels "
                             "deep", path=source)
        deepest[id(value)] = depth
        stack.extend((child, depth + 1) for child in
                     (value.values() if isinstance(value, dict) else value))


def _parse_json(text: str, source: Path | None, what: str) -> Document:
    def refuse_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            _JsonLines(text, source, what).scan()  # finds the repeated key, raises with its line
        return result

    try:
        data = json.loads(text, object_pairs_hook=refuse_repeats)
    except json.JSONDecodeError as exc:
        raise InputError(f"line {exc.lineno}: not valid JSON: {exc.msg}", path=source) from None
    except RecursionError:  # the decoder recurses once per level
        raise InputError("not valid JSON: nested too deeply to be read", path=source) from None
    return Document(source, data, text, "json")


def _scan_string(text: str, after_quote: int) -> tuple[str, int]:
    """The JSON string starting after the quote at ``after_quote - 1`` and where it ends."""
    value, end = json.decoder.scanstring(text, after_quote)  # type: ignore[attr-defined]
    return str(value), int(end)


class _JsonLines:
    """Walks JSON text recording the line of every key and list item, refusing a repeated
    key. Slower than ``json.loads``, so it runs only when a line is needed."""

    _SPACE = re.compile(r"[ \t\n\r]*")
    _SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
                         r"|true|false|null|NaN|-?Infinity")

    def __init__(self, text: str, source: Path | None, what: str = "file") -> None:
        self.text = text
        self.source = source
        self.what = what
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.lines: dict[KeyPath, int] = {}

    def scan(self) -> dict[KeyPath, int]:
        self._value(self._skip(0), ())
        return self.lines

    def _line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def _skip(self, pos: int) -> int:
        match = self._SPACE.match(self.text, pos)
        return pos if match is None else match.end()

    def _value(self, pos: int, where: KeyPath) -> int:
        self.lines.setdefault(where, self._line(pos))
        char = self.text[pos]
        if char == "{":
            return self._object(pos + 1, where)
        if char == "[":
            return self._array(pos + 1, where)
        if char == '"':
            return _scan_string(self.text, pos + 1)[1]
        match = self._SCALAR.match(self.text, pos)
        assert match is not None, "json.loads accepted this text"
        return match.end()

    def _object(self, pos: int, where: KeyPath) -> int:
        pos = self._skip(pos)
        first_line: dict[str, int] = {}
        if self.text[pos] == "}":
            return pos + 1
        while True:
            key, after = _scan_string(self.text, pos + 1)
            line = self._line(pos)
            if key in first_line:
                raise InputError(f"{_render(where + (key,), self.what)} (line {line}): key "
                                 f"{key!r} appears twice (first on line {first_line[key]})",
                                 path=self.source)
            first_line[key] = line
            self.lines[where + (key,)] = line
            pos = self._skip(self._skip(after) + 1)  # past the colon
            pos = self._skip(self._value(pos, where + (key,)))
            if self.text[pos] == "}":
                return pos + 1
            pos = self._skip(pos + 1)  # past the comma

    def _array(self, pos: int, where: KeyPath) -> int:
        pos = self._skip(pos)
        if self.text[pos] == "]":
            return pos + 1
        index = 0
        while True:
            pos = self._skip(self._value(pos, where + (index,)))
            if self.text[pos] == "]":
                return pos + 1
            pos = self._skip(pos + 1)
            index += 1


class _YamlLoader(yaml.SafeLoader):
    """SafeLoader that keeps dates as the strings they are written as (JSON has no dates)."""


def _timestamp_as_text(loader: _YamlLoader, node: yaml.Node) -> str:
    assert isinstance(node, yaml.ScalarNode)
    return str(loader.construct_scalar(node))


_YamlLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)

_STR_TAG = "tag:yaml.org,2002:str"


ALIAS_BUDGET = 100_000
"""Nodes that aliases (``*name``) may add to a YAML document when expanded, all together.

A document of a few hundred bytes whose anchors each repeat the one before ten times (the
"billion laughs") expands to 10^9 nodes: walking it for lines, or writing it as JSON for
validation, would grow without end. Aliases that repeat a settings block in every sample
of a large manifest stay far below this."""


def _parse_yaml(text: str, source: Path | None, what: str) -> Document:
    try:
        loader = _YamlLoader(text)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (a NUL)
        raise InputError(f"line {text.count(chr(10), 0, exc.position) + 1}: not valid YAML: "
                         f"{exc.reason} (character #x{exc.character:04x})",
                         path=source) from None
    try:
        node = loader.get_single_node()
        lines: dict[KeyPath, int] = {}
        if node is not None:
            _check_alias_expansion(node, source)
            _yaml_node_lines(loader, node, (), lines, _Where(source, what), set())
        data = None if node is None else loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = f"line {mark.line + 1}: " if mark is not None else ""
        problem = " ".join(str(exc.problem or exc).split())
        raise InputError(f"{at}not valid YAML: {problem}", path=source) from None
    except yaml.YAMLError as exc:
        raise InputError(f"not valid YAML: {' '.join(str(exc).split())}", path=source) from None
    except RecursionError:  # the composer and the walks recurse once per level
        raise InputError("not valid YAML: nested too deeply to be read", path=source) from None
    finally:
        loader.dispose()
    return Document(source, data, text, "yaml", lines)


def _check_alias_expansion(root: yaml.Node, source: Path | None) -> None:
    """Refuse a document whose aliases add more than :data:`ALIAS_BUDGET` nodes.

    The composed document is a graph in which an alias is the anchored node itself, so
    its size is linear in the text; the size of its expansion (each alias counted as a
    copy) is found on that graph, once per node, before anything expands it."""
    expanded: dict[int, int] = {}

    def size(node: yaml.Node, open_nodes: set[int]) -> int:
        key = id(node)
        if key in expanded:
            return expanded[key]
        if key in open_nodes:  # an alias back to an ancestor: the walk stops there
            return 1
        open_nodes.add(key)
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        total = 1 + sum(size(child, open_nodes) for child in children)
        open_nodes.discard(key)
        expanded[key] = total
        return total

    if size(root, set()) - len(expanded) > ALIAS_BUDGET:
        raise InputError(f"its YAML aliases (*name) would expand it by more than "
                         f"{ALIAS_BUDGET} nodes; write the repeated parts out instead",
                         path=source)


@dataclass(frozen=True)
class _Where:
    """The file being read, for messages: its path and what it is."""

    path: Path | None
    what: str


def _yaml_node_lines(loader: _YamlLoader, node: yaml.Node, where: KeyPath,
                     lines: dict[KeyPath, int], source: _Where, open_nodes: set[int]) -> None:
    """Record the line of every key and item under ``node``; refuse repeated and
    non-string keys."""
    lines.setdefault(where, node.start_mark.line + 1)
    if id(node) in open_nodes:  # an alias back to an ancestor: already being walked
        return
    open_nodes.add(id(node))
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # resolve "<<" merge keys first, as the loader will
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if key_node.tag != _STR_TAG:
                read_as = loader.construct_object(key_node)
                raise InputError(f"{_render(where, source.what)} (line {line}): key "
                                 f"{key_node.value!r} is not a string (YAML reads it as "
                                 f"{read_as!r}); quote it", path=source.path)
            key = key_node.value
            if key in first_line:
                raise InputError(f"{_render(where + (key,), source.what)} (line {line}): key "
                                 f"{key!r} appears twice (first on line {first_line[key]})",
                                 path=source.path)
            first_line[key] = lines[where + (key,)] = line
            _yaml_node_lines(loader, value_node, where + (key,), lines, source, open_nodes)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _yaml_node_lines(loader, item, where + (index,), lines, source, open_nodes)
    open_nodes.discard(id(node))


# --- validating -------------------------------------------------------------------------


def load(model: type[M], path: str | Path, *, what: str = "file",
         sample_key: str | None = None, sample_id: str | None = None,
         context: Mapping[str, Any] | None = None) -> M:
    """:func:`load_document` then :func:`validate`."""
    document = load_document(path, what=what)
    return validate(model, document, what=what, sample_key=sample_key, sample_id=sample_id,
                    context=context)


def validate(model: type[M], source: Document | Any, *, at: KeyPath = (), what: str = "file",
             sample_key: str | None = None, sample_id: str | None = None,
             context: Mapping[str, Any] | None = None) -> M:
    """Validate a document (or the part of it at key path ``at``) into ``model``.

    ``source`` may also be plain data (options given on a command line); errors then name
    the key path without a line. ``sample_key`` names the key that identifies a sample
    (``"id"``): an error inside a mapping that has one names that sample too; an explicit
    ``sample_id`` names the sample of a whole file. ``context`` reaches pydantic validators
    (``info.context``) together with ``"path"``, the file being read.

    The first problem is reported, except that a more specific problem at the same place
    replaces it (a union reports each member's mismatch; the one that got furthest into
    the data is the one to fix).
    """
    document = source if isinstance(source, Document) else None
    data: Any = document.data if document is not None else source
    for key in at:
        data = data[key]
    if document is not None and document.format == "yaml" and data is None and at == ():
        raise InputError(f"{what} is empty", path=document.path, sample_id=sample_id)
    try:
        text = json.dumps(data, allow_nan=True)
    except (TypeError, ValueError) as exc:  # a YAML value JSON cannot hold (binary, set)
        raise InputError(f"{what} holds a value that is not plain data: {exc}",
                         path=None if document is None else document.path,
                         sample_id=sample_id) from None
    full_context = {"path": None if document is None else document.path, **(context or {})}
    try:
        return model.model_validate_json(text, strict=True, context=full_context)
    except ValidationError as exc:
        raise _input_error(exc, model, document, data, at, what, sample_key,
                           sample_id) from None


@dataclass(frozen=True)
class _Located:
    """One pydantic error placed in the data: the keys that exist, and the shown path."""

    error: Mapping[str, Any]
    found: KeyPath  # the part of the location that exists in the data
    shown: KeyPath  # what the message names (found, plus a missing key or index)


def _locate(error: Mapping[str, Any], data: Any) -> _Located:
    """Walk pydantic's ``loc`` through the data, skipping union member tags."""
    loc = tuple(error["loc"])
    found: list[str | int] = []
    shown: list[str | int] = []
    current = data
    for position, step in enumerate(loc):
        in_mapping = isinstance(current, dict) and isinstance(step, str) and step in current
        in_list = (isinstance(current, list) and isinstance(step, int)
                   and 0 <= step < len(current))
        if in_mapping or in_list:
            current = current[step]
        elif position == len(loc) - 1 or isinstance(step, int):
            shown.append(step)  # a missing key or item: named, but it has no line
            break
        else:
            continue  # a union member tag such as 'list[Turn]' or 'int'
        found.append(step)
        shown.append(step)
    return _Located(error, tuple(found), tuple(shown))


def _pick(located: list[_Located]) -> _Located:
    chosen = located[0]
    for item in located[1:]:
        longer = len(item.found) > len(chosen.found)
        if longer and item.found[:len(chosen.found)] == chosen.found:
            chosen = item
    return chosen


def _input_error(exc: ValidationError, model: type[BaseModel], document: Document | None,
                 data: Any, at: KeyPath, what: str, sample_key: str | None,
                 sample_id: str | None) -> InputError:
    located = _pick([_locate(error, data) for error in exc.errors(include_url=False)])
    name = _render(at + located.shown, what)
    line = None if document is None else document.line(at + located.found)
    where = name if line is None else f"{name} (line {line})"
    if sample_id is None and sample_key is not None:
        sample_id = _sample_of(data, located.found, sample_key)
    problem = _describe(located, model)
    return SchemaError(f"{where}: {problem}", path=None if document is None else document.path,
                       sample_id=sample_id, key_path=at + located.shown, detail=problem)


def located_error(document: Document, where: KeyPath, problem: str, *,
                  what: str = "file") -> InputError:
    """An error found after validation (a rule across keys, a file that does not exist),
    worded as validation errors are: ``turns[1].id (line 9): duplicate turn id 'a'``."""
    name = _render(where, what)
    line = document.line(where)
    return InputError(f"{name if line is None else f'{name} (line {line})'}: {problem}",
                      path=document.path)


def _render(where: KeyPath, root: str) -> str:
    """``turns[0].start.delay_ms``; the root alone is ``root``.

    >>> _render(("turns", 0, "start", "delay_ms"), "scenario"), _render((), "scenario")
    ('turns[0].start.delay_ms', 'scenario')
    """
    text = ""
    for step in where:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text or root


def _sample_of(data: Any, found: KeyPath, sample_key: str) -> str | None:
    """The ``sample_key`` value of the innermost mapping on the path that has one."""
    nodes = [data]
    for step in found:
        nodes.append(nodes[-1][step])
    for node in reversed(nodes):
        if isinstance(node, dict) and isinstance(node.get(sample_key), str | int):
            return str(node[sample_key])
    return None


_SCALARS = (str, int, float, bool, type(None))


def shown(value: object) -> str:
    """``value`` as an error message quotes it: its repr, cut to 60 characters.

    >>> shown("soon"), shown(10 ** 70)
    ("'soon'", '100000000000000000000000000000000000000000000000000000000...')
    """
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(located: _Located, model: type[BaseModel]) -> str:
    """pydantic's message in the project's words: "must be ...", with the value given."""
    error = located.error
    kind, message = error["type"], str(error["msg"])
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        allowed = _allowed_keys(model, tuple(error["loc"])[:-1])
        return "unknown key" + (f"; allowed keys are {', '.join(allowed)}" if allowed else "")
    for prefix in ("Value error, ", "Assertion failed, "):
        if message.startswith(prefix):
            return message[len(prefix):]
    if kind == "literal_error":
        message = f"must be one of {error.get('ctx', {}).get('expected', '')}"
    elif kind in ("model_type", "dict_type", "model_attributes_type"):
        message = "must be a mapping"
    elif kind in ("list_type", "tuple_type"):
        message = "must be a list"
    elif kind == "float_type":
        message = "must be a number"
    elif kind == "int_type":
        message = "must be a whole number"
    elif kind == "string_type":
        message = "must be a string"
    elif kind == "bool_type":
        message = "must be true or false"
    elif message.startswith("Input should be "):
        message = "must be " + message[len("Input should be "):]
    else:
        message = message[:1].lower() + message[1:]
    value = error.get("input")
    if isinstance(value, _SCALARS):
        message += f", got {shown(value)}"
    elif isinstance(value, dict | list):
        message += f", got a {'mapping' if isinstance(value, dict) else 'list'}"
    return message


def _allowed_keys(model: type[BaseModel], loc: KeyPath) -> list[str]:
    """The keys the model accepts at ``loc`` (empty when the location is not a model)."""
    current: Any = _unwrap_optional(model)
    for step in loc:
        current = _unwrap_optional(_step_into(current, step))
        if current is None:
            return []
    if not (isinstance(current, type) and issubclass(current, BaseModel)):
        return []
    return sorted(info.alias or name for name, info in current.model_fields.items())


def _unwrap_optional(annotation: Any) -> Any:
    """``X | None`` as ``X`` (pydantic names no member for it in a location)."""
    members = [arg for arg in get_args(annotation) if arg is not type(None)]
    is_union = get_origin(annotation) in (Union, UnionType)
    return members[0] if is_union and len(members) == 1 else annotation


def _step_into(annotation: Any, step: str | int) -> Any:
    """The annotation one step down: a model field, a list item, a dict value, or the
    union member pydantic names in a location."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for name, info in annotation.model_fields.items():
            if step in (name, info.alias):
                return info.annotation
        return None
    args = get_args(annotation)
    origin = get_origin(annotation)
    if isinstance(step, int) and origin in (list, tuple, Sequence):
        return args[0] if args else None
    if isinstance(step, str) and origin in (dict, Mapping) and len(args) == 2:
        return args[1]
    for member in args:  # a union: pydantic names the member it tried
        if step in (getattr(member, "__name__", None), str(member).replace("typing.", "")):
            return member
    return None
