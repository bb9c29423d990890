"""Test helpers for the cache rules: token-id sequences (never used as a result)."""


def seq(start: int, n: int) -> tuple[int, ...]:
    """n distinct token ids starting at ``start`` (different starts never share a first token)."""
    return tuple(range(start, start + n))
