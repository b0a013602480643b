"""Import-linter contracts of our own: public surfaces only, and no import cycles.

``public_surface``: each top-level package states its public surface in its ``__init__``
(and a sub-package in its own ``__init__``). Code outside a top-level package, tests and
benchmarks included, imports packages, never the modules inside them: ``from tasks import
TaskManager``, not ``from tasks.engine.manager import TaskManager``. A few modules are public
by themselves (the assistant's entry points); the contract's ``public_modules`` lists them.

``acyclic``: no module imports itself through others, in any package, tests and benchmarks
included. A cycle is what a layers contract misses between modules it does not list, and it
is the first sign of two modules that are really one, or of a name kept in the wrong place.

Used from ``pyproject.toml`` (``[tool.importlinter]``), run by ``lint-imports`` from the
project root, which is how ``./scripts/check`` runs it.
"""

from __future__ import annotations

from typing import cast

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


class PublicSurfaceContract(Contract):
    """Imports that cross a top-level package boundary must name a package or a public module.

    Configuration options:
        - packages: The top-level packages whose insides are private to them.
        - public_modules: Modules other packages may import although they are not packages.
    """

    type_name = "public_surface"

    packages = fields.ListField(subfield=fields.StringField())
    public_modules = fields.ListField(subfield=fields.StringField(), required=False)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        """Find every import from outside a package into one of its plain modules."""
        # The fields hold the parsed option values once the contract is built.
        guarded = set(cast(list[str], self.packages))
        public = set(cast(list[str] | None, self.public_modules) or [])
        broken: list[dict[str, object]] = []
        for imported in sorted(graph.modules):
            home = imported.split(".")[0]
            if home not in guarded or imported in public or graph.find_children(imported):
                continue
            for importer in sorted(graph.find_modules_that_directly_import(imported)):
                if importer.split(".")[0] == home:
                    continue
                for detail in graph.get_import_details(importer=importer, imported=imported):
                    broken.append({**detail, "surface": _surface_of(imported)})
        return ContractCheck(kept=not broken, metadata={"broken": broken})

    def render_broken_contract(self, check: ContractCheck) -> None:
        """Name each import and the package whose surface it should use instead."""
        for item in check.metadata["broken"]:
            output.print_error(
                f"{item['importer']}:{item['line_number']} imports {item['imported']}, "
                f"a module inside {item['surface']}: import it from {item['surface']}"
            )
            output.indent_cursor()
            output.print(str(item["line_contents"]))
            output.new_line()


def _surface_of(module: str) -> str:
    """The package whose ``__init__`` should export ``module``'s names."""
    return module.rsplit(".", 1)[0]


class AcyclicContract(Contract):
    """No import cycles among the modules of the root packages; ``TYPE_CHECKING`` imports
    count too (two modules that need each other's types are one subject in two places).

    Configuration options:
        - packages: The top-level packages whose modules are checked.
    """

    type_name = "acyclic"

    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        """Find the strongly connected groups of more than one module."""
        roots = tuple(cast(list[str], self.packages))
        modules = sorted(m for m in graph.modules if m.split(".")[0] in roots)
        edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
        cycles = [sorted(group) for group in _strong_groups(modules, edges) if len(group) > 1]
        return ContractCheck(kept=not cycles, metadata={"cycles": cycles})

    def render_broken_contract(self, check: ContractCheck) -> None:
        """Name the modules of each cycle."""
        for cycle in check.metadata["cycles"]:
            output.print_error("these modules import each other: " + ", ".join(cycle))
            output.new_line()


def _strong_groups(nodes: list[str], edges: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, next_edge = work.pop()
            if next_edge == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = [t for t in edges.get(node, []) if t in edges]
            for position in range(next_edge, len(targets)):
                target = targets[position]
                if target not in index:
                    work.append((node, position + 1))
                    work.append((target, 0))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                if low[node] == index[node]:
                    group: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    groups.append(group)
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
    return groups
