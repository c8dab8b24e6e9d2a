"""The prover's proof table (query/search/prooftable.py): a table doubled in place holds what
inserting its entries anew into an empty table twice as large would (proofs first), slot for
slot; and a proof table that grows from a few slots proves what one that never grows does."""
from __future__ import annotations

import random

import numpy as np
import pytest

from tablebase.builder.games.grid import parse_spec
from tablebase.query.search import prooftable, proving
from tablebase.query.search.proving import ProofTable
from tests.test_prover import _positions

_KINDS = (np.uint64, np.uint64, np.int64, np.int64, np.uint64, np.int16, np.uint8)


def _table(slots: int) -> list[np.ndarray]:
    return [np.zeros(slots, dtype=kind) for kind in _KINDS]


def _fill(arrays: list[np.ndarray], ctl: np.ndarray, rng: random.Random, count: int) -> None:
    """`count` puts of random keys (few bits: keys repeat, buckets overflow), a third proofs,
    a sixth disproofs, the rest unresolved."""
    for _ in range(count):
        kx, ko = np.uint64(rng.getrandbits(9)), np.uint64(rng.getrandbits(9) << 40)
        kind = rng.randrange(6)
        pn, dn = (0, 1 << 40) if kind < 2 else (1 << 40, 0) if kind == 2 else \
            (rng.randint(1, 99), rng.randint(1, 99))
        prooftable.put(*arrays, ctl, kx, ko, pn, dn, np.uint64(rng.getrandbits(64)),
                       rng.randrange(-1, 64), rng.randrange(5))


@pytest.mark.parametrize("seed", range(4))
def test_a_table_doubled_in_place_is_the_entries_inserted_anew(seed: int) -> None:
    """Slot for slot, with the count of slots in use."""
    rng = random.Random(seed)
    small, ctl = _table(256), np.zeros(prooftable.CONTROLS, dtype=np.int64)
    _fill(small, ctl, rng, 400)
    assert (small[6] != 0).sum() > 150  # many slots in use, some buckets full
    anew, ctl_anew = _table(512), np.zeros(prooftable.CONTROLS, dtype=np.int64)
    for proofs in (True, False):
        for s in range(256):
            f = int(small[6][s])
            if f & prooftable.USED and bool(f & prooftable.PROVED) == proofs:
                # The move as an int64, as the prover passes it: put's compiled version.
                prooftable.put(*anew, ctl_anew, small[0][s], small[1][s], small[2][s],
                               small[3][s], small[4][s], int(small[5][s]), f >> 3)
    doubled = _table(512)
    for a, b in zip(doubled, small):
        a[:256] = b
    ctl_doubled = np.zeros(prooftable.CONTROLS, dtype=np.int64)
    prooftable.double(*doubled, ctl_doubled)
    for a, b in zip(doubled, anew):
        assert (a == b).all()
    assert ctl_doubled[prooftable.FILLED] == ctl_anew[prooftable.FILLED] == (small[6] != 0).sum()


def test_a_table_that_grows_proves_what_one_that_does_not_proves(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """From 16 slots (doubling on the way, each time searching on from the root) and from a
    table never full, the same answers on random 5x5k4 positions, for each side."""
    spec = parse_spec("5x5k4")
    boards = _positions("5x5k4", range(4, 8), 8, seed=4)
    big = [ProofTable(spec, 1 << 22) for _ in boards]
    expected = [t.run(b, a) for t, b in zip(big, boards) for a in (0, 1)]
    assert all(t.slots == proving.FIRST_SLOTS for t in big)
    monkeypatch.setattr(proving, "FIRST_SLOTS", 16)
    small = [ProofTable(spec, 1 << 22) for _ in boards]
    found = [t.run(b, a) for t, b in zip(small, boards) for a in (0, 1)]
    assert max(t.slots for t in small) > 16  # it grew
    assert found == expected and set(found) == {1, -1}
