"""Checks shared by the memory repositories; each failure quotes the value and a fix."""

from __future__ import annotations

from memory.errors import MemoryInputError

MAX_LIMIT = 1000


def require_id(value: str, what: str) -> str:
    """Return ``value`` when it is a non-empty string id."""
    if not isinstance(value, str) or not value.strip():
        raise MemoryInputError(f"{what} must be a non-empty string, got {value!r}")
    return value


def require_limit(limit: int) -> int:
    """Return ``limit`` when it is between 1 and ``MAX_LIMIT``."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise MemoryInputError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")
    return limit
