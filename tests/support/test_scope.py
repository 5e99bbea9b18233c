"""The undo-log symbol table that makes inference, mono and CPS conversion linear."""

from __future__ import annotations

from cpsc.support.scope import Scope


def test_inner_binding_shadows_and_undo_restores():
    env: Scope[int] = Scope({"x": 1})
    mark = env.mark()
    env.bind("x", 2)
    env.bind("y", 3)
    assert env["x"] == 2 and env.get("y") == 3
    env.undo(mark)
    assert env["x"] == 1 and "y" not in env and env.get("y") is None


def test_nested_scopes_close_in_order():
    env: Scope[str] = Scope()
    with env.scope():
        env.bind("a", "outer")
        with env.scope():
            env.bind("a", "inner")
            env.bind("a", "innermost")
            assert env["a"] == "innermost"
        assert env["a"] == "outer"
    assert "a" not in env


def test_a_scope_closes_when_an_error_escapes():
    env: Scope[int] = Scope()
    try:
        with env.scope():
            env.bind("z", 1)
            raise ValueError
    except ValueError:
        pass
    assert "z" not in env
