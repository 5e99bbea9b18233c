"""The corpus of public programs (scripts/corpus.py): its manifest is well formed (CI has no
texts: they stay out of the repository), and the script that runs it tells a present text
from a changed or absent one and compares with `ocaml`."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("corpus", ROOT / "scripts" / "corpus.py")
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
sys.modules["corpus"] = corpus  # (before it runs: its dataclasses look their module up)
_spec.loader.exec_module(corpus)


def test_the_manifest_is_well_formed_and_large_enough():
    entries, causes = corpus.read_manifest(), corpus.read_causes()
    assert corpus.problems(entries, causes) == []
    assert len(entries) >= 150
    assert len({e.repository for e in entries}) >= 10


def test_every_cause_is_known_and_every_known_cause_is_met():
    entries, causes = corpus.read_manifest(), corpus.read_causes()
    used = {e.cause for e in entries if e.cause}
    assert used <= set(causes)
    assert set(causes) <= used, "a cause no program has any more: remove it from causes.tsv"


def test_a_malformed_entry_is_named():
    good = corpus.read_manifest()[0]
    bad = corpus.Entry(good.repository, "abc", good.path, "", good.sha256, "", "", "no-such-cause")
    found = corpus.problems([good, bad, good], corpus.read_causes())
    assert any("commit is not 40 hex digits" in p for p in found)
    assert any("no licence" in p for p in found)
    assert any("unknown cause 'no-such-cause'" in p for p in found)
    assert any("listed twice" in p for p in found)


@pytest.mark.skipif(shutil.which("ocaml") is None, reason="ocaml is not installed")
def test_a_present_text_runs_and_a_changed_or_absent_one_is_reported(tmp_path):
    text = b'let () = print_endline (String.concat "," ["a"; "b"]); exit 3\n'
    entry = corpus.Entry("someone/programs", "0" * 40, "src/hello.ml", "MIT", hashlib.sha256(text).hexdigest(),
                         "", "", "")
    assert corpus.outcome(entry, tmp_path) == "absent"
    path = corpus.cached(entry, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(text)
    assert corpus.outcome(entry, tmp_path) is None  # agrees with ocaml: the same stdout, status 3
    path.write_bytes(text.replace(b"exit 3", b"exit 4"))
    assert corpus.outcome(entry, tmp_path).startswith("changed")
