"""``@tool``: attach a tool specification to a typed, documented function or method.

The decorator only records options on the function; nothing is registered globally. The
specification (name, description, JSON Schema; ``tools.define.spec``) is built from the
signature and docstring the first time it is needed, usually when a ``ToolRegistry`` is
constructed, so a definition error surfaces there with the tool's name in it.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar, Unpack, get_origin, overload

from tools.define.options import Formatter, ToolArguments, ToolOptions
from tools.define.spec import ToolSpec, build_spec
from tools.errors import ToolDefinitionError

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS_ATTR = "__tool_options__"
_OUTPUT_ATTR = "__tool_output__"
_SPEC_ATTR = "__tool_spec__"


@overload
def tool(func: F, /) -> F: ...


@overload
def tool(
    name: str | None = None, description: str | None = None, /, **arguments: Unpack[ToolArguments]
) -> Callable[[F], F]: ...


@overload
def tool(name: str, description: str | None = None, /, **options: Any) -> Callable[[F], F]: ...


def tool(
    target: F | str | None = None, description: str | None = None, /, **options: Any
) -> F | Callable[[F], F]:
    """Mark a function or method as a tool an LLM can call.

    Used bare (``@tool``) or with options (``@tool(name=..., requires_approval=True)``; see
    ``ToolOptions``). The schema is inferred from the signature and the docstring; ``params``
    fragments are merged over what was inferred. The function itself is returned unchanged.

    The name and the description may also come first, and a parameter's type may be given
    by name, for a parameter the signature leaves unannotated::

        @tool("add_reminder", "Set a one-time reminder", delay=str, message=str)

    A keyword is a parameter type when the function has a parameter of that name and the
    value is a type (``description=str``); otherwise it is an option.

    Raises:
        ToolDefinitionError: for an unknown option, a risk level or timeout out of range, or
            a name or description given twice.
    """
    if target is not None and not isinstance(target, str):
        if description is not None or options:
            raise ToolDefinitionError("@tool(func) takes no options; write @tool(...) above it")
        return _mark(target, ToolOptions())
    leading = {"name": target, "description": description}
    named = {key: value for key, value in leading.items() if value is not None}
    eager = _options_of(named, {k: v for k, v in options.items() if not _is_type(v)})

    def mark(func: F) -> F:
        if not any(_is_type(v) for v in options.values()):
            return _mark(func, eager)
        parameters = _parameter_names(func)
        types = {k: v for k, v in options.items() if k in parameters and _is_type(v)}
        rest = {k: v for k, v in options.items() if k not in types}
        return _mark(func, replace(_options_of(named, rest), types=types))

    return mark


def _mark(target: F, options: ToolOptions) -> F:
    if not callable(target):
        raise ToolDefinitionError(f"@tool needs a function or method, got {target!r}")
    setattr(target, _OPTIONS_ATTR, options)
    return target


def _options_of(named: dict[str, Any], given: dict[str, Any]) -> ToolOptions:
    twice = sorted(named.keys() & given.keys())
    if twice:
        raise ToolDefinitionError(
            f"@tool got its {twice[0]} twice: {named[twice[0]]!r} and {given[twice[0]]!r}"
        )
    given = {**given, **named}
    unknown = sorted(given.keys() - ToolArguments.__annotations__.keys())
    if unknown:
        known = ", ".join(sorted(ToolArguments.__annotations__))
        raise ToolDefinitionError(
            f"@tool has no option {unknown[0]!r}; the options are {known}, and a parameter's "
            f"type is given as a type, e.g. {unknown[0]}=str"
        )
    return ToolOptions.of(**given)


def _is_type(value: object) -> bool:
    """Whether ``value`` is a type annotation (``str``, ``list[str]``, ``int | None``...)."""
    return isinstance(value, type | types.UnionType) or get_origin(value) is not None


def _parameter_names(func: Callable[..., Any]) -> frozenset[str]:
    try:
        return frozenset(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return frozenset()


def tool_output(*, llm_format: Formatter = None, gui_format: Formatter = None) -> Callable[[F], F]:
    """Say how a tool's result is written for the model and for a person.

    The same as ``@tool(llm_format=..., gui_format=...)``, as a decorator of its own; it may
    stand above or below ``@tool`` (or ``@registry.register``). A format is a string over
    the result's fields (``"{city}: {degrees} C"``) or a function of the result.
    """

    def mark(func: F) -> F:
        setattr(func, _OUTPUT_ATTR, (llm_format, gui_format))
        return func

    return mark


def is_tool(obj: object) -> bool:
    """Return whether ``obj`` is a function marked with ``@tool``."""
    return isinstance(getattr(obj, _OPTIONS_ATTR, None), ToolOptions)


def spec_of(func: Callable[..., Any]) -> ToolSpec:
    """Return the (cached) specification of a function marked with ``@tool``.

    Raises:
        ToolDefinitionError: when ``func`` is not marked, or its signature cannot become a tool.
    """
    cached = getattr(func, _SPEC_ATTR, None)
    if isinstance(cached, ToolSpec):
        return cached
    options = getattr(func, _OPTIONS_ATTR, None)
    if not isinstance(options, ToolOptions):
        raise ToolDefinitionError(f"{func!r} is not marked with @tool")
    formats = getattr(func, _OUTPUT_ATTR, None)
    if formats is not None:
        options = replace(
            options,
            llm_format=options.llm_format or formats[0],
            gui_format=options.gui_format or formats[1],
        )
    spec = build_spec(func, options)
    setattr(func, _SPEC_ATTR, spec)
    return spec
