"""The spec grammar: WxHkK[+gravity][+misere][+exact], width first, and its refusals."""
from __future__ import annotations

import pytest

from tablebase.builder.games.grid import InvalidSpecError, Spec, parse_spec


@pytest.mark.parametrize("text, expected", [
    ("3x3k3", Spec(3, 3, 3)),
    ("tictactoe", Spec(3, 3, 3)),
    ("  TicTacToe ", Spec(3, 3, 3)),
    ("4x3k3", Spec(4, 3, 3)),
    ("4x4k4+gravity", Spec(4, 4, 4, gravity=True)),
    ("3x3k3+misere", Spec(3, 3, 3, misere=True)),
    ("5x4k4+misere+gravity", Spec(5, 4, 4, gravity=True, misere=True)),
    ("1x1k1", Spec(1, 1, 1)),
    ("13x3k3", Spec(13, 3, 3)),
])
def test_parses(text: str, expected: Spec) -> None:
    spec = parse_spec(text)
    assert spec == expected
    assert parse_spec(spec.name) == spec


def test_width_comes_first() -> None:
    spec = parse_spec("4x3k3")
    assert (spec.width, spec.height, spec.cells) == (4, 3, 12)


def test_name_orders_flags() -> None:
    assert parse_spec("4x4k4+misere+gravity").name == "4x4k4+gravity+misere"


@pytest.mark.parametrize("text, fragment", [
    ("3x3k4", "larger than both sides"),
    ("0x3k1", "side of zero"),
    ("3x0k1", "side of zero"),
    ("3x3k0", "at least 1"),
    ("27x6k4", "at most 26 columns"),
    ("7x100k4", "and 99 rows"),
    ("99999x1k1", "board 99999x1 is too large"),
    ("3x3k3+wrap", "unknown flag +wrap"),
    ("3x3k3+gravity+gravity", "twice"),
    ("3x3k3+", "unknown flag +"),
    ("3x3", "cannot read spec"),
    ("", "cannot read spec"),
    ("x3k3", "cannot read spec"),
    ("-3x3k3", "cannot read spec"),
    ("3x3k3; DROP TABLE games", "cannot read spec"),
])
def test_refuses(text: str, fragment: str) -> None:
    with pytest.raises(InvalidSpecError, match=fragment.replace("+", r"\+")):
        parse_spec(text)


def test_refuses_non_string() -> None:
    with pytest.raises(InvalidSpecError):
        parse_spec(33)  # type: ignore[arg-type]


def test_largest_board_fits_int64() -> None:
    assert 3 ** parse_spec("13x3k3").cells - 1 < 2 ** 63


def test_equal_specs_parse_to_one_object() -> None:
    """The caches a Spec keys find it by identity (a probe looks its game up a few times):
    equal specs, however spelled, are one object; a Spec made directly still equals it."""
    assert parse_spec("3x3k3") is parse_spec(" tictactoe ") is parse_spec("3X3K3")
    assert parse_spec("teeko") is parse_spec("5x5k4+square+stones4")
    assert parse_spec("3x3k3") is not parse_spec("3x3k3+misere")
    assert Spec(3, 3, 3) == parse_spec("3x3k3") and hash(Spec(3, 3, 3)) == hash(parse_spec("3x3k3"))
