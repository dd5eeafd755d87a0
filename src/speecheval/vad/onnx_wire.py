"""Just enough of the ONNX protobuf format to read a model's weights and write a small graph.

``silero_batched`` rebuilds Silero's 16 kHz network as matrix products over all windows of a
block. It needs the weights of the 16 kHz branch of ``silero_vad.onnx`` byte for byte and a
new graph that onnxruntime can run. onnxruntime gives neither: a session exposes its
inputs, outputs and metadata (``get_overridable_initializers`` names and shapes, no
values) and is made from a finished model. The ``onnx`` package could, but it is not a
dependency (its generated protobuf classes would be the only reason to add it). ONNX files
are plain protobuf messages, so the few fields involved are read and written here directly:

- ``ModelProto``: ir_version (1), graph (7), opset_import (8: domain 1, version 2);
- ``GraphProto``: node (1), name (2), initializer (5), input (11), output (12);
- ``NodeProto``: input (1), output (2), op_type (4), attribute (5);
- ``AttributeProto``: name (1), i (3), s (4), t (5), g (6), ints (8), type (20);
- ``TensorProto``: dims (1), data_type (2), name (8), raw_data (9);
- ``ValueInfoProto``: name (1), type (2) -> TypeProto.tensor_type (1) -> elem_type (1).

The exported Silero model keeps each rate's weights as ``Constant`` nodes (a tensor in
attribute ``t``) inside the branches of an ``If`` node (subgraphs in attribute ``g``), so
:func:`read_constants` walks every subgraph.

Field numbers are those of ``onnx/onnx.proto`` (the public format definition).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import NDArray

FLOAT, INT64 = 1, 7  # TensorProto.DataType
_DTYPES: dict[int, np.dtype[np.generic]] = {FLOAT: np.dtype("<f4"), INT64: np.dtype("<i8")}
_ATTR_INT, _ATTR_STRING, _ATTR_INTS = 2, 3, 7  # AttributeProto.AttributeType
IR_VERSION = 8
OPSET = 16

AttributeValue = int | str | Sequence[int]


# ---- reading ---------------------------------------------------------------------------

def _varint(data: memoryview, index: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[index]
        index += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, index


def _fields(data: memoryview) -> Iterator[tuple[int, int | memoryview]]:
    """(field number, value) of each field of a message; packed and fixed fields as bytes."""
    index = 0
    while index < len(data):
        key, index = _varint(data, index)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, index = _varint(data, index)
            yield number, value
        elif wire == 2:
            size, index = _varint(data, index)
            yield number, data[index: index + size]
            index += size
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            yield number, data[index: index + size]
            index += size
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")


def _message(fields: Iterator[tuple[int, int | memoryview]], number: int) -> memoryview:
    for field, value in fields:
        if field == number and isinstance(value, memoryview):
            return value
    raise ValueError(f"protobuf field {number} is missing")


def read_constants(model: bytes) -> dict[str, NDArray[np.generic]]:
    """The tensors of every ``Constant`` node (float32 or int64, stored as ``raw_data``),
    in the main graph and in every subgraph (the branches of ``If`` nodes), by the
    name of the node's output: where an exported ``If`` model keeps a branch's weights."""
    found: dict[str, NDArray[np.generic]] = {}
    graphs = [_message(_fields(memoryview(model)), 7)]
    while graphs:
        for field, node in _fields(graphs.pop()):
            if field == 1 and isinstance(node, memoryview):
                graphs += _read_node(node, found)
    return found


def _read_node(node: memoryview, found: dict[str, NDArray[np.generic]]) -> list[memoryview]:
    """Put a ``Constant`` node's tensor into ``found``; return the node's subgraphs."""
    op_type, outputs = "", []
    subgraphs: list[memoryview] = []
    tensors: list[memoryview] = []
    for key, part in _fields(node):
        if not isinstance(part, memoryview):
            continue
        if key == 2:
            outputs.append(bytes(part).decode())
        elif key == 4:
            op_type = bytes(part).decode()
        elif key == 5:  # an attribute: a tensor (t) or a graph (g) among its fields
            for number, value in _fields(part):
                if number == 6 and isinstance(value, memoryview):
                    subgraphs.append(value)
                elif number == 5 and isinstance(value, memoryview):
                    tensors.append(value)
    array = _tensor(tensors[0]) if op_type == "Constant" and tensors else None
    if array is not None:
        found[outputs[0]] = array
    return subgraphs


def _tensor(message: memoryview) -> NDArray[np.generic] | None:
    """A ``TensorProto``'s values, if they are float32 or int64 ``raw_data``."""
    dims: list[int] = []
    data_type, raw = 0, b""
    for key, part in _fields(message):
        if key == 1 and isinstance(part, int):
            dims.append(part)
        elif key == 2 and isinstance(part, int):
            data_type = part
        elif key == 9 and isinstance(part, memoryview):
            raw = bytes(part)
    if data_type not in _DTYPES or not raw:
        return None
    return np.frombuffer(raw, dtype=_DTYPES[data_type]).reshape(dims).copy()


# ---- writing ---------------------------------------------------------------------------

def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _int_field(number: int, value: int) -> bytes:
    return _encode_varint(number << 3) + _encode_varint(value)


def _bytes_field(number: int, value: bytes) -> bytes:
    return _encode_varint(number << 3 | 2) + _encode_varint(len(value)) + value


def tensor(name: str, array: NDArray[np.generic]) -> bytes:
    """A ``TensorProto`` holding ``array`` (float32 or int64) as raw little-endian bytes."""
    data_type = FLOAT if array.dtype.kind == "f" else INT64
    raw = np.ascontiguousarray(array, dtype=_DTYPES[data_type]).tobytes()
    return (b"".join(_int_field(1, dim) for dim in array.shape) + _int_field(2, data_type)
            + _bytes_field(8, name.encode()) + _bytes_field(9, raw))


def _attribute(name: str, value: AttributeValue) -> bytes:
    if isinstance(value, int):
        return _bytes_field(1, name.encode()) + _int_field(3, value) + _int_field(20, _ATTR_INT)
    if isinstance(value, str):
        return (_bytes_field(1, name.encode()) + _bytes_field(4, value.encode())
                + _int_field(20, _ATTR_STRING))
    return (_bytes_field(1, name.encode()) + b"".join(_int_field(8, v) for v in value)
            + _int_field(20, _ATTR_INTS))


def node(op_type: str, inputs: Sequence[str], outputs: Sequence[str],
         **attributes: AttributeValue) -> bytes:
    """A ``NodeProto``; an empty input name marks an optional input left out."""
    return (b"".join(_bytes_field(1, name.encode()) for name in inputs)
            + b"".join(_bytes_field(2, name.encode()) for name in outputs)
            + _bytes_field(4, op_type.encode())
            + b"".join(_bytes_field(5, _attribute(key, value))
                       for key, value in attributes.items()))


def float_value(name: str) -> bytes:
    """A ``ValueInfoProto`` for a float tensor of any shape (a graph input or output)."""
    tensor_type = _int_field(1, FLOAT)
    return _bytes_field(1, name.encode()) + _bytes_field(2, _bytes_field(1, tensor_type))


def model(name: str, nodes: Sequence[bytes], initializers: Sequence[bytes],
          inputs: Sequence[str], outputs: Sequence[str]) -> bytes:
    """A ``ModelProto`` (IR 8, default opset 16) of one graph with float inputs and outputs."""
    graph = (b"".join(_bytes_field(1, n) for n in nodes) + _bytes_field(2, name.encode())
             + b"".join(_bytes_field(5, t) for t in initializers)
             + b"".join(_bytes_field(11, float_value(i)) for i in inputs)
             + b"".join(_bytes_field(12, float_value(o)) for o in outputs))
    opset = _bytes_field(1, b"") + _int_field(2, OPSET)
    return _int_field(1, IR_VERSION) + _bytes_field(7, graph) + _bytes_field(8, opset)
