"""The TTL rules every store shares: whole milliseconds, from 1 ms to 100 years.

Redis counts expiry in whole milliseconds (``PX``) and rounded 1.1 s up to 1.101 s through
float noise, while the other stores kept sub-millisecond TTLs: the same ``set`` expired at
different moments. Now every TTL is rounded up to whole milliseconds once, for all four (the
contract suite checks that a TTL under 1 ms is refused everywhere).
"""

from __future__ import annotations

import pytest

from toolwire.errors import StoreError
from toolwire.stores import MAX_TTL_SECONDS, MIN_TTL_SECONDS
from toolwire.stores._ttls import check_ttl, milliseconds


@pytest.mark.parametrize(
    ("ttl", "expected"),
    [
        (0.001, 0.001),
        (0.0011, 0.002),
        (0.0015, 0.002),
        (1, 1.0),
        (1.1, 1.1),
        (0.7, 0.7),
        (60.0004, 60.001),
        (MAX_TTL_SECONDS, MAX_TTL_SECONDS),
    ],
)
def test_a_ttl_is_rounded_up_to_whole_milliseconds(ttl: float, expected: float) -> None:
    assert check_ttl("ttl_seconds", ttl) == expected


def test_no_ttl_stays_none() -> None:
    assert check_ttl("ttl_seconds", None) is None


@pytest.mark.parametrize(("ttl", "ms"), [(0.001, 1), (0.7, 700), (1.1, 1100), (3600.0, 3_600_000)])
def test_milliseconds_of_a_checked_ttl_adds_no_float_noise(ttl: float, ms: int) -> None:
    assert milliseconds(ttl) == ms


@pytest.mark.parametrize("ttl", [MIN_TTL_SECONDS / 2, 0, -1, MAX_TTL_SECONDS + 1])
def test_a_ttl_outside_the_range_names_both_ends(ttl: float) -> None:
    with pytest.raises(StoreError, match=r"from 0\.001 s \(1 ms\) up to 3153600000 s"):
        check_ttl("ttl_seconds", ttl)
