"""``Tool``: a tool specification bound to its instance, ready to describe and to call."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError, to_jsonable_python

from tools.calls import RiskLevel
from tools.context import ToolContext
from tools.define import (
    DEFAULT_TIMEOUT,
    ApprovalRule,
    Formatter,
    Hook,
    JsonSchema,
    ToolOptions,
    ToolSpec,
    mapping_spec,
    spec_of,
)
from tools.errors import ToolDefinitionError, ToolError
from tools.provenance import Effect, host_of

DynamicKey = tuple[str, str, str]
"""``(tool name, parameter name, path inside the parameter's schema)``."""

_PER_USER_NOTE = "(allowed values are computed for each user)"
_EMPTY_NOTE = "(no values are available right now)"
_FAILED_NOTE = "(the allowed values could not be computed right now)"

logger = logging.getLogger(__name__)


class ArgumentConversionError(ToolError):
    """Arguments passed the schema but not the conversion to the function's Python types."""


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool ready for use: its specification, bound to an instance for methods.

    Usually made from a ``@tool`` function by the registry (``from_function``). A function
    of the arguments dict becomes one with ``from_mapping`` (see ``tools.define.mapping``)::

        Tool.from_mapping("lights_off", turn_off, description="Turn the lights off",
                          parameters={"type": "object", "properties": {"room": {...}}})
    """

    spec: ToolSpec
    instance: object | None = None

    @classmethod
    def from_function(cls, func: Callable[..., Any], instance: object | None = None) -> Self:
        """Build a tool from a function or method marked with ``@tool``.

        Raises:
            ToolDefinitionError: when ``func`` is a method but no instance was given.
        """
        spec = spec_of(func)
        if spec.is_method and instance is None:
            raise ToolDefinitionError(
                f"tool {spec.name!r} is a method; register an instance of its class instead"
            )
        return cls(spec=spec, instance=instance if spec.is_method else None)

    @classmethod
    def from_mapping(
        cls,
        name: str,
        func: Callable[..., Any],
        *,
        description: str | None = None,
        parameters: Mapping[str, Any] | None = None,
        requires_approval: ApprovalRule = False,
        risk_level: RiskLevel | str = RiskLevel.LOW,
        timeout: float = DEFAULT_TIMEOUT,
        effects: Sequence[Effect | str] = (),
        origin: str | None = None,
    ) -> Self:
        """Build the tool ``name`` from ``func(arguments)`` or ``func(arguments, user_context)``.

        Without ``parameters`` any arguments are accepted; the description is ``func``'s
        docstring summary when not given. ``timeout``, ``effects`` and ``origin`` are as for
        ``@tool`` (``ToolOptions``).

        Raises:
            ToolDefinitionError: when the definition is malformed.
        """
        options = ToolOptions.of(
            requires_approval=requires_approval,
            risk_level=risk_level,
            timeout=timeout,
            effects=effects,
            origin=origin,
        )
        spec = mapping_spec(
            name=name, func=func, description=description, parameters=parameters, options=options
        )
        return cls(spec=spec)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.spec.aliases

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def origin(self) -> str | None:
        """Where the tool comes from when it is not the assistant's own ("MCP server 'files'")."""
        return self.spec.options.origin

    @property
    def risk_level(self) -> RiskLevel:
        return self.spec.options.risk_level

    @property
    def timeout(self) -> float:
        return self.spec.options.timeout

    @property
    def parallel(self) -> bool:
        """Whether calls of this tool may run at the same time as the calls around them."""
        return self.spec.options.parallel

    @property
    def effects(self) -> frozenset[Effect]:
        """What a call does besides answering (``tools.provenance.Effect``)."""
        return self.spec.options.effects

    def reaches(self, arguments: Mapping[str, Any]) -> str | None:
        """The host a call with ``arguments`` sends to, or ``None``."""
        name = self.spec.options.reaches
        if name and "://" in name:
            return host_of(name)  # a service at a fixed address (a search API)
        if not name:
            return None
        if name in arguments:
            return host_of(arguments[name])
        # Left out: the address is the parameter's default, and that is where it goes.
        default = next((p.default for p in self.spec.params if p.name == name), None)
        return host_of(default)

    @property
    def function(self) -> Callable[..., Any]:
        """The callable to invoke: the function, or the method bound to its instance."""
        if self.instance is not None:
            bound: Callable[..., Any] = self.spec.func.__get__(self.instance)
            return bound
        return self.spec.func

    @property
    def requires_approval(self) -> bool:
        """Whether some calls (or all) wait for a person's approval (``needs_approval``
        decides for one call)."""
        return self.spec.options.requires_approval is not False

    # -- describing ---------------------------------------------------------------------

    def schema(self, ctx: ToolContext | None = None) -> JsonSchema:
        """Return the parameters' JSON Schema with dynamic values resolved for ``ctx``.

        Without a context, dynamic values are left out and the parameter's description says
        that its allowed values are computed per user.

        Raises:
            ToolError: when a dynamic value is asynchronous and ``ctx`` was not prepared.
        """
        properties: dict[str, Any] = {}
        for name, prop in self.spec.parameters["properties"].items():
            resolved = self._resolve(prop, ctx, name, "")
            properties[name] = {} if isinstance(resolved, _Marker) else resolved
        return {**self.spec.parameters, "properties": properties}

    def providers(self) -> list[tuple[DynamicKey, Hook]]:
        """Return every dynamic value of the schema with its provider, bound to the instance."""
        found: list[tuple[DynamicKey, Hook]] = []

        def walk(node: Any, param: str, path: str) -> None:
            if isinstance(node, dict):
                for key, value in node.items():
                    walk(value, param, f"{path}/{key}")
            elif isinstance(node, list):
                for index, value in enumerate(node):
                    walk(value, param, f"{path}/{index}")
            elif callable(node):
                found.append(((self.name, param, path), Hook.of(node, self.instance)))

        for name, prop in self.spec.parameters["properties"].items():
            walk(prop, name, "")
        return found

    def _resolve(self, node: Any, ctx: ToolContext | None, param: str, path: str) -> Any:
        if isinstance(node, dict):
            out: dict[str, Any] = {}
            dropped = ""
            for key, value in node.items():
                resolved = self._resolve(value, ctx, param, f"{path}/{key}")
                if resolved is _DROP or resolved is UNAVAILABLE:
                    dropped = dropped or (_PER_USER_NOTE if ctx is None else _FAILED_NOTE)
                    continue
                if key == "enum" and resolved == []:
                    dropped = dropped or _EMPTY_NOTE
                    continue
                out[key] = resolved
            if dropped:
                out["description"] = f"{out.get('description', '')} {dropped}".strip()
            return out
        if isinstance(node, list):
            return [self._resolve(v, ctx, param, f"{path}/{i}") for i, v in enumerate(node)]
        if callable(node):
            return self._dynamic_value(node, ctx, (self.name, param, path))
        return node

    def _dynamic_value(
        self, provider: Callable[..., Any], ctx: ToolContext | None, key: DynamicKey
    ) -> Any:
        if ctx is None:
            return _DROP
        if key in ctx.resolved:
            return ctx.resolved[key]
        try:
            value = Hook.of(provider, self.instance)(ctx)
        except Exception:
            logger.exception("tool %r: the dynamic value at %s failed", self.name, param_path(key))
            return UNAVAILABLE
        if inspect.isawaitable(value):
            if inspect.iscoroutine(value):
                value.close()
            raise ToolError(
                f"tool {self.name!r}: the dynamic value at {param_path(key)} is asynchronous; "
                "call `await registry.prepare(ctx)` before rendering"
            )
        return value

    # -- safety -------------------------------------------------------------------------

    def needs_approval(self, arguments: dict[str, Any], ctx: ToolContext) -> bool:
        """Return whether a call with ``arguments`` must be approved by a person first."""
        rule = self.spec.options.requires_approval
        if isinstance(rule, bool):
            return rule
        return bool(Hook.of(rule, self.instance)(arguments, ctx))

    # -- calling ------------------------------------------------------------------------

    async def invoke(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        """Run the tool with already validated ``arguments``.

        ``preprocess`` runs first, the arguments are converted to the function's Python types,
        the function runs (a sync function in a worker thread), then ``postprocess``.

        Raises:
            ArgumentConversionError: when an argument cannot be converted.
            Exception: whatever the tool itself raises.
        """
        options = self.spec.options
        if options.preprocess is not None:
            arguments = options.preprocess(dict(arguments))
        function, args, kwargs = self._call_of(arguments, ctx)
        if self.spec.is_async:
            result = await function(*args, **kwargs)
        else:
            result = await asyncio.to_thread(function, *args, **kwargs)
            if inspect.isawaitable(result):
                result = await result
        if options.postprocess is not None:
            result = options.postprocess(result)
        return result

    def _call_of(
        self, arguments: dict[str, Any], ctx: ToolContext
    ) -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]:
        """Return what to call, with which positional and keyword arguments."""
        if self.spec.takes_mapping:
            hook = Hook.of(self.function)
            offered = (dict(arguments), ctx.user_context())
            return hook.target, offered if hook.takes is None else offered[: hook.takes], {}
        kwargs = self._convert(arguments)
        if self.spec.context_param is not None:
            kwargs[self.spec.context_param] = ctx
        return self.function, (), kwargs

    def _convert(self, arguments: dict[str, Any]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for param in self.spec.params:
            if param.name not in arguments:
                if param.pass_default:
                    kwargs[param.name] = param.default
                continue
            try:
                kwargs[param.name] = self.spec.adapter(param).validate_python(arguments[param.name])
            except ValidationError as exc:
                first = exc.errors()[0]
                raise ArgumentConversionError(
                    f"tool {self.name!r}, argument {param.name!r}: {first['msg']} "
                    f"(received {arguments[param.name]!r})"
                ) from None
        return kwargs

    # -- formatting ---------------------------------------------------------------------

    def format_for_model(self, output: Any) -> str:
        """Render ``output`` for the model (``llm_format`` or compact JSON / ``str``)."""
        return render_output(output, self.spec.options.llm_format)

    def format_for_person(self, output: Any) -> str:
        """Render ``output`` for a person (``gui_format``, else the model's rendering)."""
        formatter = self.spec.options.gui_format
        if formatter is None:
            return self.format_for_model(output)
        return render_output(output, formatter)


class _Marker:
    """A value that stands for a dynamic value left out of a schema."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


_DROP = _Marker("<rendered without a context>")
UNAVAILABLE: Any = _Marker("<unavailable>")
"""What ``prepare`` records for a dynamic value whose provider failed: the schema leaves it
out (only that tool loses it), and the failure is logged."""


async def evaluate(key: DynamicKey, provider: Hook, ctx: ToolContext) -> Any:
    """Return ``provider``'s value for ``ctx`` (awaited), or ``UNAVAILABLE`` if it fails."""
    try:
        value = provider(ctx)
        return await value if inspect.isawaitable(value) else value
    except Exception:
        logger.exception("tool %r: the dynamic value at %s failed", key[0], param_path(key))
        return UNAVAILABLE


def param_path(key: DynamicKey) -> str:
    """Describe a dynamic key as ``parameter/path`` for messages."""
    return f"{key[1]}{key[2]}"


def as_plain(output: Any) -> Any:
    """Return ``output`` as JSON-like data (dataclasses and pydantic models become dicts)."""
    if isinstance(output, BaseModel):
        return output.model_dump(mode="json")
    if dataclasses.is_dataclass(output) and not isinstance(output, type):
        return dataclasses.asdict(output)
    return output


def compact_json(value: Any) -> str:
    """Serialise ``value`` as compact JSON, keeping non-ASCII text readable."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_jsonable)


def _jsonable(value: Any) -> Any:
    try:
        return to_jsonable_python(value)
    except PydanticSerializationError:
        return str(value)


def render_output(output: Any, formatter: Formatter) -> str:
    """Render a tool's output with ``formatter`` (see ``Formatter``).

    A format string is applied to the output's fields (a dict, dataclass or model) and may
    also use ``{result}`` for the whole output; if it does not fit the output, the default
    rendering is used so the model still sees the result.
    """
    if callable(formatter):
        return str(formatter(output))
    plain = as_plain(output)
    if isinstance(formatter, str):
        fields = plain if isinstance(plain, dict) else {}
        try:
            return formatter.format_map({"result": output, **fields})
        except (KeyError, IndexError, ValueError, AttributeError, TypeError):
            pass
    if isinstance(plain, dict | list | tuple):
        return compact_json(plain)
    return str(plain)
