"""The mutation fuzzer (`scripts/fuzz`): what counts as a finding, mutants made again from
their seed, and a run that finds a planted crash."""

from __future__ import annotations

from cpsc.testing import fuzz


def test_the_contract_a_compile_must_keep():
    located = "mutant.fl:3:7: error: Syntax error: unexpected ')'\n     3 | ...\n"
    assert fuzz.verdict(0, "") is None
    assert fuzz.verdict(0, "mutant.fl:1:9: warning: this pattern-matching is not exhaustive\n") is None
    assert fuzz.verdict(1, located) is None
    assert fuzz.verdict(1, "cpsc: error: something\n") == "status 1 without a located error"
    assert fuzz.verdict(1, "Traceback (most recent call last):\n  ...\nKeyError: 'g'\n") == "traceback"
    assert fuzz.verdict(-11, "") == "killed by signal 11"
    assert fuzz.verdict(2, "") == "status 2"


def test_mutants_come_again_from_their_seed():
    programs = ["let x = 1\nlet () = print_int x\n", 'let s = "a" ^ "b"\n']
    first = [m for _, m in zip(range(50), fuzz.Mutator(programs, 7).mutants())]
    again = [m for _, m in zip(range(50), fuzz.Mutator(programs, 7).mutants())]
    assert first == again and len(set(first)) > 25
    assert any(m not in programs for m in first)


def test_a_crash_of_the_compiler_is_a_finding(tmp_path, monkeypatch):
    worker = fuzz.Worker(tmp_path, timeout=60)
    why, _ = worker.compile("let x = 1\n")
    assert why is None
    from cpsc.cli import main  # interpreted (the stages may be compiled): a patch holds

    def crash(*args, **kwargs):
        raise KeyError("planted")

    monkeypatch.setattr(main, "_run", crash)
    why, stderr = worker.compile("let x = 1\n")
    assert why == "traceback" and "KeyError: 'planted'" in stderr
