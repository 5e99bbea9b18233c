"""`Hashtbl.hash`: OCaml's structural hash (`caml_hash`, MurmurHash3 mixing over at most 10
meaningful values of a breadth-first walk of at most 100), computed on FL values as if they
had OCaml's representation, so that a Hashtbl iterates in OCaml's order.

FL values carry no tags at run time (an int is a raw 64-bit word), so the walk is guided by a
*descriptor* of the value's type that monomorphisation builds (`cpsc.types.datatypes`): nodes
separated by `;`, the root first, children by index:

    i               an immediate: int, char, bool, unit (OCaml's `Val_long`)
    l   L   n       an int32, an int64, a nativeint: FL's int, OCaml's custom blocks, each
                    hashed as OCaml's custom operations hash them
    B               a bytes: FL's array of chars, hashed as OCaml's string
    f   s   _       a float, a string, something not hashed (a function, an exception)
    t,c1,...,ck     a block of k fields (tuple, record, ref), tag 0
    F,k             a record of k floats (OCaml's flat float record)
    a,c   A         an array of c; an array of floats
    b,c             an array of bytes (bools, chars: c is an immediate), hashed as `a,c`
    v,T,a1,...      a variant: constant constructors are immediates; block constructor j has
                    the children `aj` (joined by `:`); T = 1 when blocks hold their tag first

The runtime (`fl_hash` in runtime.c) walks native values with the same descriptor.
"""

from __future__ import annotations

import functools
import struct
from typing import Any

_M32 = 0xFFFFFFFF
MEANINGFUL, LIMIT = 10, 100  # Hashtbl.hash = seeded_hash_param 10 100 0
QUEUE_SIZE = 256  # the most values a walk may see, whatever the limit asked


def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & _M32


def mix(h: int, d: int) -> int:
    d = (d * 0xCC9E2D51) & _M32
    d = _rotl(d, 15)
    d = (d * 0x1B873593) & _M32
    h ^= d
    h = _rotl(h, 13)
    return (h * 5 + 0xE6546B64) & _M32


def final_mix(h: int) -> int:
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _M32
    return h ^ (h >> 16)


def mix_intnat(h: int, d: int) -> int:
    d &= (1 << 64) - 1
    signed = d - (1 << 64) if d >> 63 else d
    return mix(h, ((signed >> 32) ^ (signed >> 63) ^ signed) & _M32)


def mix_double(h: int, x: float) -> int:
    low, high = struct.unpack("<II", struct.pack("<d", x))
    if (high & 0x7FF00000) == 0x7FF00000 and (low | (high & 0xFFFFF)) != 0:
        high, low = 0x7FF00000, 1  # every NaN hashes alike
    elif high == 0x80000000 and low == 0:
        high = 0  # -0. as 0.
    return mix(mix(h, low), high)


def mix_string(h: int, s: str) -> int:
    data = s.encode("latin-1")
    n = len(data)
    i = 0
    while i + 4 <= n:
        h = mix(h, int.from_bytes(data[i:i + 4], "little"))
        i += 4
    if n & 3:
        h = mix(h, int.from_bytes(data[i:], "little"))
    return h ^ (n & _M32)


@functools.cache
def parse_descriptor(descriptor: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(node.split(",")) for node in descriptor.split(";"))


def _signed64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


# OCaml's int32_hash, int64_hash and nativeint_hash (runtime/ints.c), of which caml_hash
# mixes the low 32 bits
_CUSTOM_HASHES = {
    "l": lambda v: v,
    "L": lambda v: (_signed64(v) >> 32) ^ v,
    "n": lambda v: (_signed64(v) >> 32) ^ (_signed64(v) >> 63) ^ v,
}


def _immediate(value: Any) -> int:
    if isinstance(value, str):
        return ord(value)
    return 0 if value is None else int(value)


def hash_value(descriptor: str, meaningful: int, total: int, seed: int, value: Any) -> int:
    """`Hashtbl.seeded_hash_param meaningful total seed value` for an interpreter's value of the
    type `descriptor` describes (`Hashtbl.hash` is `meaningful` 10, `total` 100, `seed` 0)."""
    nodes = parse_descriptor(descriptor)
    queue: list[tuple[Any, int]] = [(value, 0)]
    limit = total if 0 <= total <= QUEUE_SIZE else QUEUE_SIZE
    read, count, h = 0, meaningful, seed & _M32
    while read < len(queue) and count > 0:
        v, index = queue[read]
        read += 1
        node = nodes[index]
        kind = node[0]
        if kind == "i" or kind == "v" and not isinstance(v, (tuple, list)):
            h = mix_intnat(h, 2 * _immediate(v) + 1)
            count -= 1
        elif kind in _CUSTOM_HASHES:
            h, count = mix(h, _CUSTOM_HASHES[kind](v) & _M32), count - 1
        elif kind == "f":
            h, count = mix_double(h, v), count - 1
        elif kind in ("s", "B"):
            h, count = mix_string(h, v if kind == "s" else "".join(v)), count - 1
        elif kind in ("F", "A"):
            if not v:
                h = mix(h, 0)  # an empty array is a block of size 0
            for x in v:
                h, count = mix_double(h, x), count - 1
                if count <= 0:
                    break
        elif kind != "_":
            tag, children, items = _block(node, v)
            h = mix(h, ((len(items) << 10) | tag) & _M32)
            for child, item in zip(children, items):
                if len(queue) >= limit:
                    break
                queue.append((item, child))
    return final_mix(h) & 0x3FFFFFFF


def _block(node: tuple[str, ...], v: Any) -> tuple[int, list[int], list[Any]]:
    """A block's tag, the descriptor nodes of its fields, and its fields."""
    if node[0] == "t":
        return 0, [int(c) for c in node[1:]], list(v)
    if node[0] in ("a", "b"):
        return 0, [int(node[1])] * len(v), list(v)
    tagged = node[1] == "1"
    tag = v[0] if tagged else 0
    items = list(v[1:] if tagged else v)
    return tag, [int(c) for c in node[2 + tag].split(":")], items

