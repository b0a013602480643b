"""``ToolSpec``: a tool's name, description and JSON Schema, built from its function's
signature and docstring and the options ``@tool`` was given."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic import TypeAdapter
from pydantic.fields import FieldInfo

from common import LazyPattern
from tools.context import ToolContext
from tools.define.docstrings import parse_docstring
from tools.define.options import ToolOptions
from tools.define.schema import JsonSchema, schema_for
from tools.errors import ToolDefinitionError

_NAME_JUNK = LazyPattern(r"[^A-Za-z0-9_.]")


def normalize_name(name: str) -> str:
    """Return ``name`` with every character other than letters, digits, ``_`` and ``.`` as ``_``.

    The dot stays because it separates an MCP server's name from its tool's
    (``files.read_file``, ``tools.mcp``); backends whose wire format forbids it encode it there.
    """
    return _NAME_JUNK.sub("_", name.strip())


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
            as another) instead of one keyword per argument; see ``tools.define.mapping``.
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
