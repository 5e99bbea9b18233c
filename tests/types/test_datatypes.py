"""`DataTypes.irregular`: which data types have no finite set of types below them (`type 'a t =
Leaf of 'a | Node of ('a * 'a) t`), so that nothing specialised per type can be made for them."""

from __future__ import annotations

import pytest

from cpsc import driver
from cpsc.types.types import INT, TCon, show

REGULAR = {
    "list": "type 'a mylist = Nil | Cons of 'a * 'a mylist",
    "rose tree": "type 'a rose = Rose of 'a * 'a rose list",
    "mutual": "type 'a tree = Node of 'a * 'a forest and 'a forest = Empty | Trees of 'a tree * 'a forest",
    "other instance, not recursive": "type 'a pair = P of 'a * 'a\ntype 'a tree = Leaf of 'a pair pair | Node of 'a tree",
    "record": "type 'a cell = { value : 'a; mutable next : 'a cell option }",
}

IRREGULAR = {
    "nested pairs": ("type 'a tree = Leaf of 'a | Node of ('a * 'a) tree", "tree", "('a * 'a) tree"),
    "through a list": ("type 'a tree = Leaf of 'a | Node of 'a list tree", "tree", "'a list tree"),
    "mutual": ("type 'a tree = L of 'a | N of 'a wrap and 'a wrap = W of ('a * 'a) tree", "tree", "('a * 'a) tree"),
}


def datatypes(declarations: str):
    user = driver.parse_program(declarations + "\n", "t.ml")
    return driver.type_check(user)[1]


@pytest.mark.parametrize("name", REGULAR)
def test_regular_types_have_no_irregular_part(name: str):
    types = datatypes(REGULAR[name])
    for type_name in [n for n in types.types if n not in datatypes("").types]:
        args = tuple(INT for _ in types.types[type_name].params)
        assert types.irregular(TCon(type_name, args)) is None
        assert types.irregular(TCon("list", (TCon(type_name, args),))) is None


@pytest.mark.parametrize("name", IRREGULAR)
def test_a_non_regular_type_is_found_through_what_holds_it(name: str):
    declarations, type_name, nested = IRREGULAR[name]
    types = datatypes(declarations)
    found = types.irregular(TCon("option", (TCon(type_name, (INT,)),)))
    assert found is not None
    assert found[0] == type_name
    assert show(found[1]) == nested
