"""Where a turn's content came from, and what a call may do because of it.

A tool declares its effects (``Effect``): it reads content from outside (a fetched page, search
results, an API's answer), reads the user's private data (their notes), sends data out (to
the host its ``reaches`` rule names), changes or removes the user's data, or stores a prompt
that runs unattended. The agent keeps a ``Provenance`` for each turn of the model: the outside
sources the conversation has read (this turn, and earlier turns whose stored history still
holds what they fetched), the hosts the user named themself, and the private values the
turn's tools returned. ``Provenance.check`` then says, for one proposed call:

- runs: nothing from outside steers it, or it only reads;
- needs approval, with why ("this request follows content from attacker.example"): a call
  that sends data out to a host the user did not name, or changes their data, in a turn that
  read outside content; a request to a host they did not name that carries data from a
  tool's answer, or that follows a read of their private data (their notes, their tasks)
  in the conversation, however it would be encoded; more than one removal in one turn;
- refused, with why: an unattended run (an agent task) sending to a host its prompt did not
  name, removing the user's tasks or notes, or changing them after it read outside content
  (saving a summary of the user's own data is allowed).

The planner's own calls carry no provenance (they do what the user's words say); only the
model's calls are checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from common import LazyPattern


class Effect(StrEnum):
    """What a tool's call does beyond answering."""

    READS_OUTSIDE = "reads_outside"
    """Its answer is content from outside, written by someone else (a page, search results)."""
    READS_PRIVATE = "reads_private"
    """Its answer is the user's private data (their notes)."""
    SENDS_OUT = "sends_out"
    """It sends a request to the host its ``reaches`` rule names."""
    CHANGES = "changes"
    """It creates, changes or removes the user's tasks or notes."""
    REMOVES = "removes"
    """It removes one of the user's tasks or notes (counted: more than one per turn asks)."""


_HOST = LazyPattern(
    r"(?:https?://)?(?P<host>(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{1,62}"
    r"|localhost|\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?",
    re.IGNORECASE,
)
_PIECE = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9_-]{5,}")
MIN_CARRIED = 6
"""The shortest run of letters and digits that counts as data carried out (a password, a
code, a word of a note); shorter ones are too common to tell anything."""
_COMMON = frozenset(
    {"https", "http", "localhost", "search", "value", "format", "application", "charset"}
)


def host_of(url: object) -> str | None:
    """The lower-case host of a URL (``None`` when it has none)."""
    if not isinstance(url, str) or not url.strip():
        return None
    try:
        host = urlsplit(url.strip() if "//" in url else f"//{url.strip()}").hostname
    except ValueError:
        return None
    return host.lower().rstrip(".") if host else None


def hosts_named(texts: Iterable[str]) -> frozenset[str]:
    """The hosts the words name: URLs and bare names with a dot ("home.lan", "example.com")."""
    found: set[str] = set()
    for text in texts:
        for match in _HOST.finditer(text):
            found.add(match["host"].lower().rstrip("."))
    return frozenset(found)


def _pieces(value: object) -> set[str]:
    """Runs of letters and digits in a value (nested in mappings and lists too)."""
    if isinstance(value, Mapping):
        return {p for item in value.values() for p in _pieces(item)} | {
            p for key in value for p in _pieces(key)
        }
    if isinstance(value, list | tuple):
        return {p for item in value for p in _pieces(item)}
    if value is None:
        return set()
    return {p.lower() for p in _PIECE.findall(str(value))} - _COMMON


@dataclass(frozen=True, slots=True)
class Verdict:
    """What may happen to a call: run, ask the user first (``ask``), or refuse.

    Attributes:
        ask: Why the user must approve it first, or ``None``.
        refuse: Why it may not run at all, or ``None``.
    """

    ask: str | None = None
    refuse: str | None = None

    @property
    def runs(self) -> bool:
        """Whether the call runs without asking."""
        return self.ask is None and self.refuse is None


RUNS = Verdict()


@dataclass(frozen=True, slots=True)
class Provenance:
    """The provenance of one turn of the model (see the module's docstring).

    Attributes:
        checked: Whether calls are checked at all (the planner's own calls are not).
        outside: The outside sources read so far ("attacker.example", "web search results").
        named: The hosts the user named in this conversation.
        private: Runs of letters and digits the turn's tools returned (notes, answers) that
            the user did not say: data a request must not carry to a host the user did not
            name without asking.
        known: The runs of letters and digits the user said (a tool repeating them carries
            nothing of theirs).
        read_private: What of the user's private data the conversation has read ("search_memory's
            answer"): a request to a host the user did not name asks after it, however the
            data would be encoded.
        removals: How many removals the model asked for in this turn so far.
        unattended: Whether nobody is there to approve (a scheduled agent task): it may send
            only to the hosts its prompt names (``named``).
    """

    checked: bool = False
    outside: tuple[str, ...] = ()
    named: frozenset[str] = frozenset()
    private: frozenset[str] = frozenset()
    known: frozenset[str] = frozenset()
    read_private: tuple[str, ...] = ()
    removals: int = 0
    unattended: bool = False

    @classmethod
    def of_model(
        cls,
        said: Iterable[str],
        *,
        outside: Iterable[str] = (),
        private: Iterable[str] = (),
        unattended: bool = False,
    ) -> Provenance:
        """A model turn's provenance: the hosts named in what the user ``said`` (for an
        unattended run, its prompt: those are the hosts it may send to), the outside
        sources and the private data the conversation has read."""
        said = list(said)
        named = hosts_named(said)
        return cls(
            checked=True,
            known=frozenset(piece for text in said for piece in _pieces(text)),
            outside=tuple(dict.fromkeys(outside)),
            read_private=tuple(dict.fromkeys(private)),
            named=named,
            unattended=unattended,
        )

    def read(self, effects: frozenset[Effect], source: str, answer: object) -> Provenance:
        """The provenance after a call with ``effects`` answered ``answer`` (from ``source``)."""
        if not self.checked:
            return self
        outside = self.outside
        if Effect.READS_OUTSIDE in effects and source not in outside:
            outside = (*outside, source)
        read_private = self.read_private
        if Effect.READS_PRIVATE in effects and source not in read_private:
            read_private = (*read_private, source)
        private = self.private | (_pieces(answer) - self.known)
        return replace(self, outside=outside, private=frozenset(private), read_private=read_private)

    def check(
        self, effects: frozenset[Effect], host: str | None, arguments: Mapping[str, Any]
    ) -> Verdict:
        """What may happen to one call with ``effects``, sending to ``host``."""
        if not self.checked:
            return RUNS
        if Effect.SENDS_OUT in effects and host is None:
            host = "an address that cannot be read"  # judged as a host nobody named
        if self.unattended:
            return self._unattended(effects, host)
        if Effect.SENDS_OUT in effects and host is not None and host not in self.named:
            if self.outside:
                return Verdict(
                    ask=f"this request to {host} follows content from {self._sources()}, "
                    "and you did not name that host"
                )
            carried = sorted(_pieces(arguments) & self.private)
            if carried:
                return Verdict(
                    ask=f"it would send data from your notes or a tool's answer "
                    f"({_quote(carried)}) to {host}, which you did not name"
                )
            if self.read_private:
                return Verdict(
                    ask=f"this request to {host}, which you did not name, follows a read of "
                    f"your private data ({', '.join(self.read_private[:3])})"
                )
        if Effect.CHANGES in effects and self.outside:
            return Verdict(ask=f"this change follows content from {self._sources()}")
        if Effect.REMOVES in effects and self.removals >= 1:
            return Verdict(ask="it is more than one removal in one turn")
        return RUNS

    def counted(self, effects: frozenset[Effect]) -> Provenance:
        """The provenance after the model asked for a call with ``effects``."""
        if not self.checked or Effect.REMOVES not in effects:
            return self
        return replace(self, removals=self.removals + 1)

    def _unattended(self, effects: frozenset[Effect], host: str | None) -> Verdict:
        if Effect.SENDS_OUT in effects and host is not None and host not in self.named:
            return Verdict(
                refuse=f"a scheduled task runs without you, so it may only send requests to "
                f"the hosts its prompt names, and {host} is not one of them"
            )
        if Effect.REMOVES in effects:
            return Verdict(
                refuse="a scheduled task runs without you, so it may not remove your tasks or notes"
            )
        if Effect.CHANGES in effects and self.outside:
            return Verdict(
                refuse=f"a scheduled task runs without you, so it may not change your tasks "
                f"or notes after reading content from {self._sources()}"
            )
        return RUNS

    def _sources(self) -> str:
        return ", ".join(self.outside[:3]) + (" and more" if len(self.outside) > 3 else "")


def _quote(pieces: list[str]) -> str:
    shown = ", ".join(f"'{p}'" for p in pieces[:3])
    return shown + (", ..." if len(pieces) > 3 else "")
