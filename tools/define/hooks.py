"""``Hook``: a function given to ``@tool`` (a dynamic value, a rule, a resolver), ready to call.

Such functions are written in several ways, and every one of them works::

    "enum": lambda ctx: ...            # a function of the call's context
    "enum": lambda self: ...           # in a class body: a function of the instance
    "enum": lambda self, ctx: ...      # ... or of the instance and the context
    "enum": lambda: [...]              # or of nothing at all

A plain function whose first parameter is ``self`` is bound to the tool's instance; the
function then receives as many of the offered arguments, in order, as it takes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Hook:
    """A user-supplied function, bound to its tool's instance where it asks for ``self``.

    Attributes:
        target: What is called: the function, or the function bound to the instance.
        identity: ``(function, instance)``: equal for the same function of the same object,
            so a value several tools share is computed once.
        takes: How many of the offered arguments it receives (``None``: all of them).
    """

    target: Callable[..., Any]
    identity: tuple[object, object]
    takes: int | None

    @classmethod
    def of(cls, func: Callable[..., Any], instance: object | None = None) -> Hook:
        """Return ``func`` ready to call for a tool bound to ``instance`` (or to none)."""
        if inspect.ismethod(func):
            return cls(func, (func.__func__, func.__self__), _arity(func))
        if instance is not None and inspect.isfunction(func) and _first_parameter(func) == "self":
            bound: Callable[..., Any] = func.__get__(instance)
            return cls(bound, (func, instance), _arity(bound))
        return cls(func, (func, None), _arity(func))

    def __call__(self, *offered: Any) -> Any:
        """Call the function with the first ``takes`` of ``offered``."""
        return self.target(*(offered if self.takes is None else offered[: self.takes]))


def _first_parameter(func: Callable[..., Any]) -> str | None:
    try:
        parameters = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return None
    return parameters[0] if parameters else None


def _arity(func: Callable[..., Any]) -> int | None:
    """How many positional arguments ``func`` takes; ``None`` when any number (or unknown)."""
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    count = 0
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return None
        if parameter.kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            count += 1
    return count
