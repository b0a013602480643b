"""Bearer tokens: which user each one stands for, and a check that leaks nothing through time.

``ASSISTANT_API_TOKENS`` is ``token1:alice,token2:bob``. A token that is easy to guess
(``aaaaaaaaaaaaaaaa``, ``abcdefgh12345678``, ``passwordpassword``) is refused at start: its
strength is estimated (``estimated_bits``) and must reach ``ASSISTANT_API_TOKEN_MIN_BITS``.
A token is compared with every configured token through their SHA-256 digests with
``hmac.compare_digest``, all of them every time, so neither a token's length nor how much of
it matched shows in the response time. Tokens never appear in messages or logs.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
from collections import Counter
from collections.abc import Mapping

MIN_TOKEN_CHARS = 16
MIN_TOKEN_BITS = 50
"""The default floor of ``estimated_bits``: every one of a million ``token_urlsafe(16)`` or
``token_hex(16)`` tokens (128 random bits) passes it, ``passwordpassword`` (38) does not."""
_TOKEN = re.compile(r"^[A-Za-z0-9._~+/=-]+$")
_USER = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
TOKEN_HINT = "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"


class TokenError(ValueError):
    """The token setting cannot be used; the message never quotes a token."""


def estimated_bits(token: str) -> float:
    """A cautious estimate of how many bits of chance a token holds.

    The entropy of the token's own character frequencies (bits per character), times the
    number of its characters that neither repeat the one before nor continue a run from it
    (``aaaa``, ``abcd`` and ``4321`` add nothing). Random tokens of 128 bits estimate above
    50; the estimate never claims more than the token has.
    """
    if not token:
        return 0.0
    counts = Counter(token)
    size = len(token)
    per_char = -sum(n / size * math.log2(n / size) for n in counts.values())
    fresh = sum(
        1 for i, char in enumerate(token) if i == 0 or abs(ord(char) - ord(token[i - 1])) > 1
    )
    return per_char * fresh


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class ApiTokens:
    """The bearer tokens of the HTTP API and the user id each stands for.

    Args:
        users_by_token: Token -> user id.
    """

    def __init__(self, users_by_token: Mapping[str, str]) -> None:
        self._entries = [(_digest(token), user) for token, user in users_by_token.items()]

    @classmethod
    def parse(cls, text: str, *, min_bits: float = MIN_TOKEN_BITS) -> ApiTokens:
        """Read ``token1:alice,token2:bob``.

        Args:
            text: The setting.
            min_bits: The least ``estimated_bits`` a token must have (0: any).

        Raises:
            TokenError: naming the entry (by position, never by its token) that is wrong.
        """
        users: dict[str, str] = {}
        entries = [part.strip() for part in text.split(",") if part.strip()]
        for number, entry in enumerate(entries, start=1):
            token, colon, user = entry.rpartition(":")
            token, user = token.strip(), user.strip()
            where = f"entry {number} of ASSISTANT_API_TOKENS"
            if not colon or not token:
                raise TokenError(f"{where} is not TOKEN:USER (e.g. 'Xy3...:alice')")
            if len(token) < MIN_TOKEN_CHARS or not _TOKEN.match(token):
                raise TokenError(
                    f"{where}: a token needs at least {MIN_TOKEN_CHARS} characters of letters, "
                    f"digits and '._~+/=-'; {TOKEN_HINT}"
                )
            strength = estimated_bits(token)
            if strength < min_bits:
                raise TokenError(
                    f"{where}: the token is too easy to guess (about {strength:.0f} bits by its "
                    f"characters; at least {min_bits:g} are needed, ASSISTANT_API_TOKEN_MIN_BITS): "
                    f"repeated and consecutive characters add nothing; {TOKEN_HINT}"
                )
            if not _USER.match(user):
                raise TokenError(
                    f"{where}: the user id {user!r} may only have letters, digits and '_.@-' "
                    "(at most 64)"
                )
            if token in users:
                raise TokenError(f"{where} repeats the token of an earlier entry")
            users[token] = user
        return cls(users)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def users(self) -> frozenset[str]:
        """The user ids the tokens stand for."""
        return frozenset(user for _, user in self._entries)

    def user_for(self, token: str) -> str | None:
        """Return the user ``token`` stands for, or ``None``; takes the same time either way."""
        digest = _digest(token)
        found: str | None = None
        for known, user in self._entries:
            if hmac.compare_digest(digest, known) and found is None:
                found = user
        return found


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or ``None``."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
