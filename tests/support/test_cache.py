"""The cache folder does not grow with each version of cpsc: what is cached once per version
(the checked prelude, the parse tables) keeps its newest few versions."""

from __future__ import annotations

import os

from cpsc.support.cache import KEPT_VERSIONS, store_version


def test_old_versions_go_and_other_kinds_stay(tmp_path):
    for n in range(KEPT_VERSIONS + 3):
        path = tmp_path / f"prelude-{n:04d}.pickle"
        store_version(path, b"x" * n, "prelude-*.pickle")
        os.utime(path, (1000 + n, 1000 + n))  # (the newest last, whatever the clock's resolution)
    (tmp_path / "parse-tables-0.pickle").write_bytes(b"t")
    store_version(tmp_path / "prelude-new.pickle", b"new", "prelude-*.pickle")
    kept = sorted(p.name for p in tmp_path.glob("prelude-*.pickle"))
    assert len(kept) == KEPT_VERSIONS
    assert "prelude-new.pickle" in kept and "prelude-0000.pickle" not in kept
    assert (tmp_path / "parse-tables-0.pickle").read_bytes() == b"t"
    assert (tmp_path / "prelude-new.pickle").read_bytes() == b"new"
