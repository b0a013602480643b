"""The names other tool frameworks give our operations, so code written for them runs here.

Five designs this project grew from (docs/seeds.md) spell the registry and the tool
their own way. ``tools.ToolRegistry`` and ``tools.Tool`` keep one name per operation; this
module's subclasses add the others, each a thin translation to that one name::

    from tools.compat import Tool, ToolRegistry

    registry = ToolRegistry()

    @registry.register(aliases=["weather"])
    def get_weather(city: str) -> str: ...

    registry.get("weather").to_openai_spec()

A compatible registry is a ``tools.ToolRegistry``: the agent and the executor take it as it is.
Every tool it holds is a compatible ``Tool``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any, TypeVar, overload

from tools import catalog
from tools.calls import RiskLevel, ToolCall, ToolResult
from tools.catalog import Registrable, ToolSchema, tools_in
from tools.context import ToolContext
from tools.define import ApprovalRule, JsonSchema, ToolSpec, is_tool, tool
from tools.errors import ToolDefinitionError
from tools.run import ToolExecutor

__all__ = ["Tool", "ToolRegistry"]

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")


class Tool(catalog.Tool):
    """A ``tools.Tool`` that also answers to the names of the assistant and l3m designs.

    Defined directly from a function of the arguments dict::

        Tool(name="lights_off", description="Turn the lights off",
             parameters={"type": "object", "properties": {"room": {"type": "string"}}},
             executor=turn_off)  # turn_off(arguments) or turn_off(arguments, user_context)
    """

    __slots__ = ()

    def __init__(
        self,
        spec: ToolSpec | None = None,
        instance: object | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: Mapping[str, Any] | None = None,
        executor: Callable[..., Any] | None = None,
        requires_approval: ApprovalRule = False,
        risk_level: RiskLevel | str = RiskLevel.LOW,
    ) -> None:
        """Bind ``spec`` to ``instance``, or define a tool from ``name`` and ``executor``.

        Raises:
            ToolDefinitionError: when neither or both forms are given, or the definition is
                malformed (``tools.Tool.from_mapping``).
        """
        if spec is None:
            if name is None or executor is None:
                raise ToolDefinitionError(
                    "a Tool needs a spec (use Tool.from_function), or a name and an executor"
                )
            spec = catalog.Tool.from_mapping(
                name,
                executor,
                description=description,
                parameters=parameters,
                requires_approval=requires_approval,
                risk_level=risk_level,
            ).spec
        elif name is not None or executor is not None:
            raise ToolDefinitionError("a Tool takes a spec or a name and an executor, not both")
        super().__init__(spec, instance)

    @classmethod
    def of(cls, found: catalog.Tool) -> Tool:
        """Return ``found`` as a compatible tool (the same tool, with these names too)."""
        return found if isinstance(found, cls) else cls(found.spec, found.instance)

    @property
    def parameters(self) -> JsonSchema:
        """``schema()``: the arguments' JSON Schema, without per-user values."""
        return self.schema()

    async def executor(self, arguments: Mapping[str, Any]) -> Any:
        """``invoke`` for the local user: runs the tool unchecked (``ToolExecutor`` checks,
        gates and times calls)."""
        return await self.invoke(dict(arguments), ToolContext())

    def to_openai_spec(self, ctx: ToolContext | None = None) -> dict[str, Any]:
        """``tools.openai_spec(tool, ctx)``."""
        return catalog.openai_spec(self, ctx)


class ToolRegistry(catalog.ToolRegistry):
    """A ``tools.ToolRegistry`` that also answers to the names of the other designs.

    ``register``, ``register_tool``, ``get``, ``get_all``, ``list_tools``, ``get_tool``,
    ``get_schema``, ``get_context_string``, ``export_schema``, ``to_openai_spec``,
    ``to_openai_tools``, ``to_registry_json``, ``clear`` and ``execute``.
    """

    def __init__(self, items: Iterable[Registrable] = ()) -> None:
        self._executor: ToolExecutor | None = None
        super().__init__(items)

    def add(self, item: Registrable) -> None:
        """``tools.ToolRegistry.add``, keeping each tool as a compatible ``Tool``."""
        for found in tools_in(item):
            super().add(Tool.of(found))

    def __getitem__(self, name: str) -> Tool:
        found = super().__getitem__(name)
        assert isinstance(found, Tool)  # add keeps every tool so
        return found

    def get(self, name: str) -> Tool | None:
        """``find``: the tool, or ``None`` when no tool has that name or alias."""
        found = self.find(name)
        assert found is None or isinstance(found, Tool)  # add keeps every tool so
        return found

    # -- registering --------------------------------------------------------------------

    @overload
    def register(
        self,
        item: R,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        aliases: Sequence[str] = (),
    ) -> R: ...

    @overload
    def register(self, schema: ToolSchema, func: F, /) -> F: ...

    @overload
    def register(self, **options: Any) -> Callable[[F], F]: ...

    def register(self, *given: Any, **options: Any) -> object:
        """Register a tool and return it; or, without one, return a decorator that does.

        Takes what ``add`` takes, and also a plain function (marked as ``@tool(**options)``
        would mark it), a ``ToolSchema`` with the function it describes, or, as
        ``@registry.register(name=..., description=..., aliases=[...])``, options only.

        Raises:
            ValueError: when a name or alias is already taken (the message quotes it).
            ToolDefinitionError: when the item cannot become a tool.
        """
        if len(given) > 2:
            raise ToolDefinitionError(
                f"register takes a tool, or a schema and a function: {given!r}"
            )
        item, func = (*given, None, None)[:2]
        if item is None:
            return lambda target: self._register_function(target, options)
        if func is not None:
            if not isinstance(item, ToolSchema):
                raise ToolDefinitionError(
                    f"register(schema, func) needs a ToolSchema, got {item!r}"
                )
            named = {"name": item.name, "description": item.description or None}
            return self._register_function(func, {**named, **options})
        if inspect.isfunction(item) and (options or not is_tool(item)):
            return self._register_function(item, options)
        self.add(item)
        return item

    def _register_function(self, func: F, options: dict[str, Any]) -> F:
        if is_tool(func) and options:
            raise ToolDefinitionError(
                f"{func.__name__!r} is already marked with @tool; give it the options there"
            )
        self.add(func if is_tool(func) else tool(**options)(func))
        return func

    def register_tool(
        self,
        name: str,
        func: Callable[..., Any],
        *,
        description: str | None = None,
        parameters: Mapping[str, Any] | None = None,
        requires_approval: bool = False,
    ) -> Tool:
        """``add(Tool.from_mapping(...))``: ``func(arguments)`` or ``func(arguments,
        user_context)`` becomes the tool ``name``, which is returned."""
        found = Tool.from_mapping(
            name,
            func,
            description=description,
            parameters=parameters,
            requires_approval=requires_approval,
        )
        self.add(found)
        return found

    def clear(self) -> None:
        """Remove every tool."""
        self._tools.clear()
        self._aliases.clear()
        self._providers.clear()

    # -- listing and describing ---------------------------------------------------------

    def get_all(self) -> list[Tool]:
        """``list(registry)``: every tool, in registration order."""
        return [self[name] for name in self.names()]

    def list_tools(self) -> list[str]:
        """``names()``."""
        return self.names()

    def get_tool(self, name: str) -> Callable[..., Any]:
        """``registry[name].function``: the tool's function (bound for a method).

        Raises:
            ToolNotFoundError: naming the closest tool and listing the available ones.
        """
        return self[name].function

    def get_schema(self, name: str) -> ToolSchema:
        """``tools.tool_schema(registry[name])``: one ``ParameterSchema`` per parameter.

        Raises:
            ToolNotFoundError: naming the closest tool and listing the available ones.
        """
        return catalog.tool_schema(self[name])

    def get_context_string(self, ctx: ToolContext | None = None) -> str:
        """``tools.prompt_catalog(registry, ctx)``: the catalog for a system prompt."""
        return catalog.prompt_catalog(self, ctx)

    def export_schema(self, ctx: ToolContext | None = None) -> dict[str, Any]:
        """``tools.schema_document(registry, ctx)``: ``{"tools": [...]}``."""
        return catalog.schema_document(self, ctx)

    def to_openai_spec(self, ctx: ToolContext | None = None) -> list[dict[str, Any]]:
        """Every tool as ``{"type": "function", "function": {...}}`` (``tools.openai_spec``)."""
        return [catalog.openai_spec(each, ctx) for each in self]

    def to_openai_tools(self, ctx: ToolContext | None = None) -> list[dict[str, Any]]:
        """``to_openai_spec``, by the name l3m's registry gives it."""
        return self.to_openai_spec(ctx)

    def to_registry_json(self, ctx: ToolContext | None = None) -> str:
        """The registry as JSON text for a system prompt: ``{"tools": [...]}``, indented.

        Each tool is ``{"name", "description", "parameters", "aliases"}``: what
        ``export_schema`` gives, with the names a call may also use.
        """
        entries = [
            {**asdict(definition), "aliases": list(each.aliases)}
            for each, definition in zip(self, catalog.tool_definitions(self, ctx), strict=True)
        ]
        return json.dumps({"tools": entries}, indent=2, ensure_ascii=False)

    # -- running ------------------------------------------------------------------------

    async def execute(
        self, name: str, arguments: Mapping[str, Any], ctx: ToolContext | None = None
    ) -> ToolResult:
        """Validate and run one call, as a ``ToolExecutor`` of this registry does.

        Without ``ctx`` the call runs for the local user; a call that needs approval comes
        back pending (an executor of your own decides approvals).
        """
        if self._executor is None:
            self._executor = ToolExecutor(self)
        return await self._executor.execute(ToolCall(name, dict(arguments)), ctx)
