"""``/docs``: the API's reference as one HTML page made from its OpenAPI document, with no script.

FastAPI's own ``/docs`` loads Swagger UI from a CDN at a floating version, without an integrity
attribute, on the origin whose local storage holds the page's bearer token: whoever serves
that file reads the token. This page is written here, from ``app.openapi()``, once: every
operation with its parameters, body, answers and the schemas they use. It has no script at
all, and its Content-Security-Policy (``DOCS_POLICY``) allows nothing but its own stylesheet,
so nothing on it can read the token even if something were injected. The machine-readable
document stays at ``/openapi.json`` for tools that render their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

DOCS_POLICY = (
    b"default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; "
    b"base-uri 'none'; form-action 'none'"
)
"""What the docs page may load: its stylesheet and the icon, nothing else (no script)."""
_METHODS = ("get", "post", "put", "patch", "delete")
_CODE = re.compile(r"(``?)([^`]+)\1")
_LINK = re.compile(r"\[([^\]]+)\]\((https://[^)\s\"<>]+)\)")


def docs_page(spec: Mapping[str, Any]) -> str:
    """The HTML page documenting ``spec`` (an OpenAPI 3 document)."""
    info = spec.get("info", {})
    schemas = spec.get("components", {}).get("schemas", {})
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_t(info.get('title', 'API'))} API</title>",
        '<link rel="icon" href="/icon.svg" type="image/svg+xml">',
        '<link rel="stylesheet" href="/docs.css"></head><body><main>',
        f"<h1>{_t(info.get('title', 'API'))} <small>API version {_t(info.get('version'))}"
        "</small></h1>",
        f"<p>{_t(info.get('summary', ''))}</p>",
        *(f"<p>{_prose(block)}</p>" for block in str(info.get("description", "")).split("\n\n")),
        '<p>The same as a machine-readable document: <a href="/openapi.json">/openapi.json'
        "</a>.</p>",
    ]
    for method, path, operation in _operations(spec):
        parts.append(_operation(method, path, operation))
    if schemas:
        parts.append("<h2>Schemas</h2>")
        parts.extend(_schema(name, schema) for name, schema in schemas.items())
    parts.append("</main></body></html>")
    return "\n".join(parts)


def _operations(spec: Mapping[str, Any]) -> Iterable[tuple[str, str, Mapping[str, Any]]]:
    for path, item in spec.get("paths", {}).items():
        for method in _METHODS:
            if method in item:
                yield method, path, item[method]


def _operation(method: str, path: str, operation: Mapping[str, Any]) -> str:
    anchor = _t(operation.get("operationId", f"{method}-{path}"))
    parts = [
        f'<section class="op" id="{anchor}">',
        f'<h3><span class="method {method}">{method.upper()}</span> <code>{_t(path)}</code> '
        f"{_t(operation.get('summary', ''))}</h3>",
    ]
    if operation.get("description"):
        parts.append(f"<p>{_prose(operation['description'])}</p>")
    parameters = [p for p in operation.get("parameters", []) if isinstance(p, Mapping)]
    if parameters:
        parts.append("<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th>")
        parts.append("<th>required</th><th>description</th></tr>")
        for parameter in parameters:
            parts.append(
                f"<tr><td><code>{_t(parameter.get('name'))}</code></td>"
                f"<td>{_t(parameter.get('in'))}</td>"
                f"<td>{_type(parameter.get('schema', {}))}</td>"
                f"<td>{'yes' if parameter.get('required') else 'no'}</td>"
                f"<td>{_t(parameter.get('description', ''))}</td></tr>"
            )
        parts.append("</table>")
    body = operation.get("requestBody", {}).get("content", {})
    for media, content in body.items():
        parts.append(f"<h4>Body ({_t(media)})</h4><p>{_type(content.get('schema', {}))}</p>")
    parts.append("<h4>Answers</h4><ul>")
    for status, response in operation.get("responses", {}).items():
        shown = [
            f"{_t(media)}: {_type(content.get('schema', {}))}"
            for media, content in response.get("content", {}).items()
        ]
        also = f" ({'; '.join(shown)})" if shown else ""
        parts.append(f"<li><b>{_t(status)}</b> {_t(response.get('description', ''))}{also}</li>")
    parts.append("</ul></section>")
    return "".join(parts)


def _schema(name: str, schema: Mapping[str, Any]) -> str:
    parts = [f'<section class="schema" id="schema-{_t(name)}"><h3>{_t(name)}</h3>']
    if schema.get("description"):
        parts.append(f"<p>{_prose(schema['description'])}</p>")
    required = set(schema.get("required", []))
    properties = schema.get("properties", {})
    if properties:
        parts.append("<table><tr><th>field</th><th>type</th><th>required</th>")
        parts.append("<th>description</th></tr>")
        for field, described in properties.items():
            parts.append(
                f"<tr><td><code>{_t(field)}</code></td><td>{_type(described)}</td>"
                f"<td>{'yes' if field in required else 'no'}</td>"
                f"<td>{_t(described.get('description', ''))}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</section>")
    return "".join(parts)


def _type(schema: Mapping[str, Any]) -> str:
    """A schema's type in a few words, with links to the named schemas it uses."""
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return f'<a href="#schema-{_t(name)}">{_t(name)}</a>'
    for combined in ("anyOf", "oneOf", "allOf"):
        if combined in schema:
            return " or ".join(_type(option) for option in schema[combined])
    kind = schema.get("type")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if "enum" in schema:
        return "one of " + ", ".join(f"<code>{_t(value)}</code>" for value in schema["enum"])
    if "const" in schema:
        return f"<code>{_t(schema['const'])}</code>"
    words = _t(kind or "any")
    if schema.get("format"):
        words += f" ({_t(schema['format'])})"
    limits = [
        f"{label} {_t(schema[key])}"
        for key, label in (
            ("minLength", "at least"),
            ("maxLength", "at most"),
            ("minimum", "from"),
            ("maximum", "to"),
            ("pattern", "matching"),
        )
        if key in schema
    ]
    return words + (f" <small>{', '.join(limits)}</small>" if limits else "")


def _prose(text: object) -> str:
    """Escaped text with its ``code`` spans and ``[links](https://...)`` kept as such."""
    shown = _CODE.sub(lambda m: f"<code>{m.group(2)}</code>", _t(text))
    return _LINK.sub(lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>', shown)


def _t(value: object) -> str:
    return escape("" if value is None else str(value))
