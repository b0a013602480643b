"""What ``@tool(...)`` takes: ``ToolArguments`` as given, ``ToolOptions`` once checked."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

from tools.calls import RiskLevel
from tools.context import ToolContext
from tools.define.schema import JsonSchema
from tools.errors import ToolDefinitionError
from tools.provenance import Effect

DEFAULT_TIMEOUT = 30.0
"""Seconds a tool may run before its call ends as a timeout."""

ApprovalRule = bool | Callable[[dict[str, Any], ToolContext], bool] | Callable[..., bool]
"""``True``/``False``, or a function of the call's arguments and context. In a class, the
rule may be a plain function of the class body taking ``(self, arguments, ctx)``; it is bound
to the instance, so it can read the instance's settings (an allow list)."""

Formatter = str | Callable[[Any], str] | None
"""A format string over the result's fields, a function of the result, or the default."""


class _TakenAsGiven(TypedDict, total=False):
    """The options ``ToolOptions`` keeps exactly as ``@tool`` was given them."""

    name: str | None
    description: str | None
    required: Sequence[str] | None
    preprocess: Callable[[dict[str, Any]], dict[str, Any]] | None
    postprocess: Callable[[Any], Any] | None
    llm_format: Formatter
    gui_format: Formatter
    requires_approval: ApprovalRule
    origin: str | None


class ToolArguments(_TakenAsGiven, total=False):
    """The options ``@tool(...)`` takes, all optional; ``ToolOptions`` says what each means."""

    params: Mapping[str, JsonSchema] | None
    aliases: Sequence[str]
    risk_level: RiskLevel | str
    timeout: float
    parallel: bool
    resolvers: Mapping[str, Callable[..., Any]]
    argument_aliases: Mapping[str, Sequence[str]]
    effects: Sequence[Effect | str]
    reaches: str | None


Resolver = Callable[..., Any]
"""Fills in a missing argument: a function of ``(ctx)`` or ``(ctx, arguments)`` (in a class,
``(self, ...)``), sync or async, returning the value or ``None`` for none."""


@dataclass(frozen=True, slots=True)
class ToolOptions:
    """What ``@tool(...)`` was given, checked; the defaults are those of a bare ``@tool``.

    Attributes:
        name: The tool's name; the function's name by default.
        description: What the model reads; the docstring by default.
        params: JSON Schema fragments merged over the inferred schema, by parameter.
        required: The required parameters; those without a default by default.
        aliases: Other names a call may use.
        preprocess: Rewrites the arguments before the call.
        postprocess: Rewrites the result after the call.
        llm_format: How the result is written for the model.
        gui_format: How the result is written for a person.
        requires_approval: Whether (or a rule deciding when) a person approves a call first.
        risk_level: How much harm a call can do.
        timeout: Seconds a call may run.
        parallel: Whether a call may run at the same time as the calls around it (a tool
            that only reads); calls in one reply otherwise run one after another, in order.
        types: Parameter types given by name (``@tool("f", "...", delay=str)``), for
            parameters the signature leaves unannotated.
        resolvers: How a missing argument is filled in from the call's context before the
            call is checked, by parameter (see ``Resolver``); such a parameter is optional
            for the model.
        argument_aliases: Other names a call may give an argument, by parameter
            (``{"when": ["delay"]}``); the call is read as if it used the parameter's name.
        effects: What a call does besides answering (``tools.provenance.Effect``): whether its
            answer is outside content or private data, whether it sends data out or changes
            the user's data. The agent's provenance check reads them (none: it only answers).
        reaches: The parameter holding the URL a call sends to, for ``Effect.SENDS_OUT``, or
            the URL itself (``"https://serpapi.com"``) for a service at a fixed address.
        origin: Where a tool that is not the assistant's own comes from ("MCP server
            'files'"), for the catalogs people read; ``None`` for ours.
    """

    name: str | None = None
    description: str | None = None
    params: Mapping[str, JsonSchema] = field(default_factory=dict)
    required: Sequence[str] | None = None
    aliases: Sequence[str] = ()
    preprocess: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    postprocess: Callable[[Any], Any] | None = None
    llm_format: Formatter = None
    gui_format: Formatter = None
    requires_approval: ApprovalRule = False
    risk_level: RiskLevel = RiskLevel.LOW
    timeout: float = DEFAULT_TIMEOUT
    parallel: bool = False
    types: Mapping[str, Any] = field(default_factory=dict)
    resolvers: Mapping[str, Resolver] = field(default_factory=dict)
    argument_aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    effects: frozenset[Effect] = frozenset()
    reaches: str | None = None
    origin: str | None = None

    @classmethod
    def of(
        cls,
        *,
        params: Mapping[str, JsonSchema] | None = None,
        aliases: Sequence[str] = (),
        risk_level: RiskLevel | str = RiskLevel.LOW,
        timeout: float = DEFAULT_TIMEOUT,
        parallel: bool = False,
        resolvers: Mapping[str, Resolver] | None = None,
        argument_aliases: Mapping[str, Sequence[str]] | None = None,
        effects: Sequence[Effect | str] = (),
        reaches: str | None = None,
        **given: Unpack[_TakenAsGiven],
    ) -> ToolOptions:
        """Return ``@tool``'s arguments as options, checked and with defaults filled in.

        Raises:
            ToolDefinitionError: for an unknown risk level or a non-positive timeout.
        """
        try:
            risk = RiskLevel(risk_level)
        except ValueError:
            raise ToolDefinitionError(
                f"risk_level {risk_level!r} is not one of {[r.value for r in RiskLevel]}"
            ) from None
        if timeout <= 0:
            raise ToolDefinitionError(f"timeout must be positive seconds, got {timeout!r}")
        try:
            declared = frozenset(Effect(effect) for effect in effects)
        except ValueError:
            raise ToolDefinitionError(
                f"effects {list(effects)!r} are not all of {[e.value for e in Effect]}"
            ) from None
        if Effect.SENDS_OUT in declared and not reaches:
            raise ToolDefinitionError("a tool that sends out names its URL parameter (reaches=)")
        return cls(
            params=dict(params or {}),
            aliases=tuple(aliases),
            risk_level=risk,
            timeout=float(timeout),
            parallel=bool(parallel),
            resolvers=dict(resolvers or {}),
            argument_aliases=_aliases_by_parameter(argument_aliases or {}),
            effects=declared,
            reaches=reaches,
            **given,
        )


def _aliases_by_parameter(given: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    aliases: dict[str, tuple[str, ...]] = {}
    for name, others in given.items():
        if isinstance(others, str):
            raise ToolDefinitionError(
                f"argument_aliases[{name!r}] must be a list of names, e.g. [{others!r}]"
            )
        aliases[name] = tuple(others)
    return aliases
