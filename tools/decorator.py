"""``@tool``: attach a tool specification to a typed, documented function or method.

The decorator only records options on the function; nothing is registered globally. The
specification (name, description, JSON Schema) is built from the signature and docstring the
first time it is needed, usually when a ``ToolRegistry`` is constructed, so a definition error
surfaces there with the tool's name in it.
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import (
    Annotated,
    Any,
    TypedDict,
    TypeVar,
    Unpack,
    get_args,
    get_origin,
    get_type_hints,
    overload,
)

from pydantic import TypeAdapter
from pydantic.fields import FieldInfo

from tools.calls import RiskLevel
from tools.context import ToolContext
from tools.docstrings import parse_docstring
from tools.errors import ToolDefinitionError
from tools.schema import JsonSchema, schema_for

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_TIMEOUT = 30.0
"""Seconds a tool may run before its call ends as a timeout."""

ApprovalRule = bool | Callable[[dict[str, Any], ToolContext], bool] | Callable[..., bool]
"""``True``/``False``, or a function of the call's arguments and context. In a class, the
rule may be a plain function of the class body taking ``(self, arguments, ctx)``; it is bound
to the instance, so it can read the instance's settings (an allow list)."""

Formatter = str | Callable[[Any], str] | None
"""A format string over the result's fields, a function of the result, or the default."""

_OPTIONS_ATTR = "__tool_options__"
_OUTPUT_ATTR = "__tool_output__"
_SPEC_ATTR = "__tool_spec__"
_NAME_JUNK = re.compile(r"[^A-Za-z0-9_]")


def normalize_name(name: str) -> str:
    """Return ``name`` with every character other than letters, digits and ``_`` as ``_``."""
    return _NAME_JUNK.sub("_", name.strip())


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


class ToolArguments(_TakenAsGiven, total=False):
    """The options ``@tool(...)`` takes, all optional; ``ToolOptions`` says what each means."""

    params: Mapping[str, JsonSchema] | None
    aliases: Sequence[str]
    risk_level: RiskLevel | str
    timeout: float
    parallel: bool
    resolvers: Mapping[str, Callable[..., Any]]
    argument_aliases: Mapping[str, Sequence[str]]


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
        return cls(
            params=dict(params or {}),
            aliases=tuple(aliases),
            risk_level=risk,
            timeout=float(timeout),
            parallel=bool(parallel),
            resolvers=dict(resolvers or {}),
            argument_aliases=_aliases_by_parameter(argument_aliases or {}),
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


@dataclass(frozen=True, slots=True)
class ParamSpec:
    """One argument of a tool, as Python sees it.

    Attributes:
        name: The parameter's name.
        annotation: Its type (with a ``Field(...)`` default folded in as ``Annotated``).
        required: Whether it has no default.
        default: Its default value (a ``Field``'s own default), ``None`` without one.
        pass_default: Whether a call without it must pass ``default`` explicitly, because
            the function's own default is a ``Field(...)`` object or there is none (a
            parameter ``@tool(required=...)`` leaves out).
    """

    name: str
    annotation: Any
    required: bool
    default: Any = None
    pass_default: bool = False


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """Everything known about a tool before it is bound to an instance.

    Attributes:
        name: The normalised tool name.
        description: What the model reads about the tool.
        parameters: The JSON Schema of the arguments; any value in it may be a callable of
            the ``ToolContext`` (a dynamic value) that is resolved when the catalog is rendered.
        func: The decorated function (unbound for methods).
        params: The Python-side parameters, in signature order.
        context_param: The name of the ``ToolContext`` parameter, if any.
        is_method: Whether ``func`` takes ``self`` and must be bound to an instance.
        is_async: Whether ``func`` is a coroutine function.
        options: The decorator's options (hooks, formatting, safety).
        takes_mapping: Whether ``func`` takes all the arguments as one dict (and the caller
            as another) instead of one keyword per argument; see ``tools.mapping``.
    """

    name: str
    description: str
    parameters: JsonSchema
    func: Callable[..., Any]
    params: tuple[ParamSpec, ...]
    context_param: str | None
    is_method: bool
    is_async: bool
    options: ToolOptions
    takes_mapping: bool = False
    adapters: dict[str, TypeAdapter[Any]] = field(default_factory=dict, compare=False)

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(normalize_name(a) for a in self.options.aliases)

    def adapter(self, param: ParamSpec) -> TypeAdapter[Any]:
        """Return the cached converter from JSON values to the parameter's Python type."""
        found = self.adapters.get(param.name)
        if found is None:
            found = TypeAdapter(param.annotation)
            self.adapters[param.name] = found
        return found


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


def build_spec(func: Callable[..., Any], options: ToolOptions) -> ToolSpec:
    """Build the specification of ``func`` from its signature, docstring and ``options``."""
    name = normalize_name(options.name or func.__name__)
    if not name:
        raise ToolDefinitionError(f"the tool name {options.name!r} is empty once normalised")
    where = f"tool {name!r}"
    try:
        hints = {**options.types, **get_type_hints(func, include_extras=True)}
    except (NameError, TypeError) as exc:
        raise ToolDefinitionError(f"{where}: cannot resolve its type annotations: {exc}") from exc
    signature = inspect.signature(func)
    doc = parse_docstring(func.__doc__)
    positional = list(signature.parameters.values())
    is_method = bool(positional) and positional[0].name in {"self", "cls"}
    # A parameter described only by a ``params`` fragment takes any value the schema allows.
    described = {name: Any for name in options.params if name not in hints}
    params, context_param = _collect_params(
        positional[1:] if is_method else positional, {**described, **hints}, where
    )
    properties = {p.name: _property_schema(p, doc.params, where) for p in params}
    _merge_overrides(properties, options.params, where)
    _check_argument_names(properties, options, where)
    required = (
        list(options.required)
        if options.required is not None
        else [p.name for p in params if p.required and p.name not in options.resolvers]
    )
    unknown = [r for r in required if r not in properties]
    if unknown:
        raise ToolDefinitionError(f"{where}: required names unknown parameters {unknown!r}")
    parameters: JsonSchema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return ToolSpec(
        name=name,
        description=(options.description or doc.description or doc.summary or name).strip(),
        parameters=parameters,
        func=func,
        params=tuple(params),
        context_param=context_param,
        is_method=is_method,
        is_async=inspect.iscoroutinefunction(func),
        options=options,
    )


def _collect_params(
    parameters: list[inspect.Parameter], hints: dict[str, Any], where: str
) -> tuple[list[ParamSpec], str | None]:
    params: list[ParamSpec] = []
    context_param: str | None = None
    for parameter in parameters:
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"{where}: *{parameter.name} / **{parameter.name} cannot be described to a "
                "model; declare each argument by name"
            )
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ToolDefinitionError(
                f"{where}: parameter {parameter.name!r} is positional-only; tools are called "
                "with named arguments"
            )
        if parameter.name not in hints:
            raise ToolDefinitionError(
                f"{where}: parameter {parameter.name!r} has no type annotation; add one, "
                f"e.g. `{parameter.name}: str`, or describe it in params"
            )
        annotation = hints[parameter.name]
        if _is_context(annotation):
            context_param = parameter.name
            continue
        params.append(_param_spec(parameter, annotation))
    return params, context_param


def _param_spec(parameter: inspect.Parameter, annotation: Any) -> ParamSpec:
    default = parameter.default
    if isinstance(default, FieldInfo):
        # ``x: str = Field(description=...)`` means ``x: Annotated[str, Field(...)]``.
        required = default.is_required()
        return ParamSpec(
            name=parameter.name,
            annotation=Annotated[annotation, default],
            required=required,
            default=None if required else default.get_default(call_default_factory=True),
            pass_default=True,
        )
    if default is inspect.Parameter.empty:
        return ParamSpec(parameter.name, annotation, required=True, pass_default=True)
    return ParamSpec(parameter.name, annotation, required=False, default=default)


def _is_context(annotation: Any) -> bool:
    if annotation is ToolContext:
        return True
    return get_origin(annotation) is not None and ToolContext in get_args(annotation)


def _property_schema(param: ParamSpec, docs: dict[str, str], where: str) -> JsonSchema:
    schema = schema_for(param.annotation, where=f"{where}, parameter {param.name!r}")
    if "description" not in schema and docs.get(param.name):
        schema["description"] = docs[param.name]
    if not param.required:
        default = _json_default(param.default)
        if default is not _NO_DEFAULT:
            schema["default"] = default
    return schema


_NO_DEFAULT = object()


def _json_default(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    try:
        return TypeAdapter(type(value)).dump_python(value, mode="json")
    except Exception:  # a default that has no JSON form is simply not advertised
        return _NO_DEFAULT


def _check_argument_names(properties: JsonSchema, options: ToolOptions, where: str) -> None:
    """Resolvers and argument aliases must name parameters; an alias must not be one."""
    named = {
        "resolvers": list(options.resolvers),
        "argument_aliases": list(options.argument_aliases),
    }
    for option, names in named.items():
        unknown = [name for name in names if name not in properties]
        if unknown:
            raise ToolDefinitionError(
                f"{where}: {option} names {unknown[0]!r}, which is not a parameter; "
                f"parameters are {sorted(properties)!r}"
            )
    seen: set[str] = set()
    for name, aliases in options.argument_aliases.items():
        for alias in aliases:
            if alias in properties or alias in seen:
                raise ToolDefinitionError(
                    f"{where}: the argument alias {alias!r} (of {name!r}) is already taken"
                )
            seen.add(alias)


def _merge_overrides(
    properties: dict[str, JsonSchema], overrides: Mapping[str, JsonSchema], where: str
) -> None:
    for name, fragment in overrides.items():
        if name not in properties:
            raise ToolDefinitionError(
                f"{where}: params override names {name!r}, which is not a parameter; "
                f"parameters are {sorted(properties)!r}"
            )
        properties[name] = _deep_merge(properties[name], fragment)


def _deep_merge(base: JsonSchema, fragment: Mapping[str, Any]) -> JsonSchema:
    merged = dict(base)
    for key, value in fragment.items():
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            merged[key] = _deep_merge(current, value)
        else:
            merged[key] = value
    return merged
