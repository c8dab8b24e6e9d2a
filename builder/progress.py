"""The progress interface the builder reports through (the command line plugs tqdm in), and
how long work takes, in words."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol


class ProgressBar(Protocol):
    """The part of tqdm's interface the builder uses."""

    def update(self, n: int = 1) -> Any: ...

    def set_postfix(self, **kwargs: Any) -> Any: ...

    def set_postfix_str(self, s: str = "") -> Any: ...


ProgressFactory = Callable[..., AbstractContextManager[ProgressBar]]


class _Silent:
    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int = 1) -> None:
        return None

    def set_postfix(self, **kwargs: Any) -> None:
        return None

    def set_postfix_str(self, s: str = "") -> None:
        return None


def NO_PROGRESS(**kwargs: Any) -> _Silent:  # noqa: N802 - a constant-like default
    """A progress factory that shows nothing."""
    return _Silent()


def duration(seconds: float) -> str:
    """Seconds in words, in the largest unit that still counts at least two of them."""
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600),
                       ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{max(seconds, 1):,.0f} seconds"
