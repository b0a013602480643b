"""An import-linter contract of our own: across packages, import public surfaces only.

Each top-level package states its public surface in its ``__init__`` (and a sub-package in
its own ``__init__``). Code outside a top-level package, tests and benchmarks included,
imports packages, never the modules inside them: ``from tasks import TaskManager``, not
``from tasks.engine.manager import TaskManager``. A few modules are public by themselves (the
assistant's entry points); they are listed in the contract's ``public_modules``.

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
