"""``ToolRegistry``: an explicit collection of tools, found by name or alias.

The catalog made from it for models and people (prompt text, Markdown, JSON) is
``tools.catalog.describe``. The names other tool frameworks give the same operations (``register``,
``get_all``, ``list_tools``, ``get_schema``, ``execute``...) are ``tools.compat``'s.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any

from tools.catalog.binding import DynamicKey, Tool, evaluate
from tools.context import ToolContext
from tools.define import Hook, is_tool, normalize_name
from tools.errors import ToolDefinitionError, ToolNotFoundError

Registrable = Tool | Callable[..., Any] | object
"""A ``Tool``, a function marked with ``@tool``, an object whose methods are marked, or a
module whose functions are."""


class ToolRegistry:
    """Tools by name and alias; built from an explicit list, never from global state.

    Example:
        >>> registry = ToolRegistry([get_current_time, TaskTools(manager)])
    """

    def __init__(self, items: Iterable[Registrable] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._aliases: dict[str, str] = {}
        self._providers: list[tuple[DynamicKey, Hook]] = []
        self._version = 0
        for item in items:
            self.add(item)

    @property
    def version(self) -> int:
        """A number that changes whenever a tool joins or leaves (what is rendered from the
        tools is kept by it: an MCP server's tools come and go while the assistant runs)."""
        return self._version

    def add(self, item: Registrable) -> None:
        """Register a tool, a marked function, or every marked method of an object.

        Raises:
            ValueError: when a name or alias is already taken (the message quotes it).
            ToolDefinitionError: when ``item`` holds no tools or a tool is malformed.
        """
        for found in tools_in(item):
            self._add_tool(found)

    def _add_tool(self, new: Tool) -> None:
        for key in (new.name, *new.aliases):
            if key in self._tools or key in self._aliases:
                raise ValueError(f"duplicate tool name or alias {key!r}")
        if len(set(new.aliases)) != len(new.aliases) or new.name in new.aliases:
            raise ValueError(f"tool {new.name!r} lists an alias twice or as its own name")
        self._tools[new.name] = new
        for alias in new.aliases:
            self._aliases[alias] = new.name
        self._providers.extend(new.providers())
        self._version += 1

    def remove(self, name: str) -> Tool:
        """Take the tool called ``name`` (exactly, not an alias) out, and return it.

        Raises:
            ToolNotFoundError: when no tool has that name.
        """
        gone = self._tools.pop(name, None)
        if gone is None:
            raise ToolNotFoundError(self.unknown_tool_message(name))
        for alias in gone.aliases:
            self._aliases.pop(alias, None)
        self._providers = [(key, hook) for key, hook in self._providers if key[0] != name]
        self._version += 1
        return gone

    # -- lookup -------------------------------------------------------------------------

    def find(self, name: str) -> Tool | None:
        """Return the tool called ``name`` (or with that alias), or ``None``.

        The name is normalised first, and a case-insensitive match is accepted, as is ``_``
        for the dot of an MCP tool's name (``files_read_file``: models that know only
        OpenAI's names write it so).
        """
        key = normalize_name(name)
        key = self._aliases.get(key, key)
        found = self._tools.get(key)
        if found is not None:
            return found
        lowered = _folded(key)
        for candidate in (*self._tools, *self._aliases):
            if _folded(candidate) == lowered:
                return self._tools[self._aliases.get(candidate, candidate)]
        return None

    def __getitem__(self, name: str) -> Tool:
        """Return the tool called ``name`` or with that alias.

        Raises:
            ToolNotFoundError: naming the closest tool and listing the available ones.
        """
        found = self.find(name)
        if found is None:
            raise ToolNotFoundError(self.unknown_tool_message(name))
        return found

    def _closest(self, name: str) -> str | None:
        """Return the registered name or alias closest to ``name``, if any is close."""
        matches = difflib.get_close_matches(
            normalize_name(name).lower(), [*self._tools, *self._aliases], n=1, cutoff=0.5
        )
        if not matches:
            return None
        return self._aliases.get(matches[0], matches[0])

    def unknown_tool_message(self, name: str) -> str:
        """Explain that ``name`` is not a tool, with the closest name and the available ones."""
        hint = self._closest(name)
        suggestion = f" Did you mean {hint!r}?" if hint else ""
        return f"Unknown tool {name!r}.{suggestion} Available tools: {', '.join(self.names())}."

    def names(self) -> list[str]:
        """Return the tool names (not aliases), in registration order."""
        return list(self._tools)

    def all_names(self) -> list[str]:
        """Return every name and alias a call may use."""
        return [*self._tools, *self._aliases]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    # -- dynamic values -----------------------------------------------------------------

    async def prepare(self, ctx: ToolContext) -> ToolContext:
        """Return ``ctx`` carrying every dynamic schema value evaluated for it.

        Asynchronous providers (a database query for this user's task ids) can only be
        evaluated here; the synchronous exports then read the values from the context. A
        provider that fails is logged and only the tools that use it go without its values.
        """
        resolved: dict[DynamicKey, Any] = {}
        # Tools often share a provider (every task tool lists the same task ids): ask it once.
        answers: dict[tuple[object, object], Any] = {}
        for key, provider in self._providers:
            if provider.identity not in answers:
                answers[provider.identity] = await evaluate(key, provider, ctx)
            resolved[key] = answers[provider.identity]
        return ctx.with_resolved(resolved)


def _folded(name: str) -> str:
    """``name`` as ``find`` compares it loosely: lower case, a dot read as ``_``."""
    return name.lower().replace(".", "_")


def tools_in(item: Registrable) -> list[Tool]:
    """Return the tools ``item`` holds, in definition order.

    Raises:
        ToolDefinitionError: when ``item`` holds no tools or a tool is malformed.
    """
    if isinstance(item, Tool):
        return [item]
    if isinstance(item, ModuleType):
        return _tools_of_module(item)
    if inspect.isfunction(item) or inspect.ismethod(item):
        if not is_tool(item):
            raise ToolDefinitionError(f"{item!r} is not marked with @tool")
        func = item.__func__ if inspect.ismethod(item) else item
        owner = item.__self__ if inspect.ismethod(item) else None
        return [Tool.from_function(func, owner)]
    found = [
        Tool.from_function(member, item)
        for _, member in inspect.getmembers(type(item), inspect.isfunction)
        if is_tool(member)
    ]
    if not found:
        raise ToolDefinitionError(f"{item!r} is neither a tool nor an object with @tool methods")
    return sorted(found, key=lambda t: _definition_order(type(item), t))


def _tools_of_module(module: ModuleType) -> list[Tool]:
    found = [
        Tool.from_function(member)
        for _, member in inspect.getmembers(module, inspect.isfunction)
        if is_tool(member) and member.__module__ == module.__name__
    ]
    if not found:
        raise ToolDefinitionError(f"the module {module.__name__!r} defines no @tool function")
    return sorted(found, key=lambda t: t.spec.func.__code__.co_firstlineno)


def _definition_order(cls: type, found: Tool) -> int:
    for index, name in enumerate(_class_attribute_order(cls)):
        if name == found.spec.func.__name__:
            return index
    return 0


def _class_attribute_order(cls: type) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        names.extend(n for n in vars(klass) if n not in names)
    return names
