"""Seed 001, the decorated-registry design: tools declared with ``@tool(description=...)``
and their signatures and docstrings, a registry asked for names, functions and schemas, plans
of ``{"tool", "sequence", "args"}`` steps validated (errors and warnings) after a parameter
resolver filled in what the plan left out. Written that way, run through the registry, the
executor and the agent with a scripted model."""

from __future__ import annotations

import sys
from typing import Any

from agent.compat import DialogAgent
from agent.llm import ScriptedBackend
from tools import ToolCall, ToolContext, ToolExecutor, ToolSchema, ToolStatus, tool
from tools.compat import ToolRegistry


def executor_step(name: str, sequence: int, **args: Any) -> ToolCall:
    """A plan step as the executor receives it (the parser reads a {"tool", "sequence",
    "args"} step the same way)."""
    return ToolCall(name, args, id=f"step-{sequence}")


TABLE: list[dict[str, Any]] = [
    {"month": "2026-01", "region": "north", "revenue": 120.0},
    {"month": "2026-02", "region": "south", "revenue": 95.5},
]


@tool(description="Load a table from a CSV file")
def load_table(path: str, separator: str = ",") -> list[dict[str, Any]]:
    """Load a table.

    Args:
        path: Path of the CSV file
        separator: Column separator

    Returns:
        The rows
    """
    return [dict(row, source=path) for row in TABLE]


@tool(description="Sum a numeric column")
def column_total(column: str, rows: int = 0) -> float:
    """Sum a column.

    Args:
        column: The column to add up
        rows: Only the first rows (0: all)
    """
    chosen = TABLE[:rows] if rows else TABLE
    return sum(float(row[column]) for row in chosen)


class ChartTools:
    """Charts whose missing columns and output paths are resolved from the dataset."""

    def __init__(self, columns: dict[str, str]) -> None:
        self.columns = columns  # name -> "temporal" | "categorical" | "numeric"
        self.drawn: list[tuple[str, str, str]] = []

    def first_column(self, kind: str) -> str | None:
        return next((name for name, k in self.columns.items() if k == kind), None)

    def next_output_path(self, ctx: ToolContext, args: dict[str, Any]) -> str:
        return f"charts/{ctx.user_id}/{len(self.drawn) + 1:02d}_{args['y']}.png"

    @tool(
        description="Draw a line chart",
        resolvers={
            "x": lambda self: self.first_column("temporal"),
            "output_path": next_output_path,
        },
    )
    def plot_line(self, x: str, y: str, output_path: str) -> str:
        """Draw a line chart.

        Args:
            x: The column along the horizontal axis
            y: The column to plot
            output_path: Where the image goes
        """
        self.drawn.append((x, y, output_path))
        return output_path


def test_the_decorator_reads_names_types_defaults_and_descriptions() -> None:
    registry = ToolRegistry([load_table, column_total])

    assert "load_table" in registry.list_tools()
    schema = registry.get_schema("load_table")
    assert (schema.name, schema.description) == ("load_table", "Load a table from a CSV file")
    assert len(schema.parameters) == 2
    path, separator = schema.parameters
    assert (path.name, path.type, path.required, path.description) == (
        "path",
        "string",
        True,
        "Path of the CSV file",
    )
    assert (separator.required, separator.default) == (False, ",")
    assert schema.returns == "list[dict[str, Any]]"


def test_registry_gives_functions_and_exports_schemas_for_an_llm() -> None:
    registry = ToolRegistry([sys.modules[__name__]])  # every @tool function of this module

    assert registry.list_tools() == ["load_table", "column_total"]
    rows = registry.get_tool("load_table")(path="sales.csv")
    assert rows[0]["source"] == "sales.csv"
    exported = registry.export_schema()
    assert exported["tools"][1] == {
        "name": "column_total",
        "description": "Sum a numeric column",
        "parameters": {
            "type": "object",
            "properties": {
                "column": {"type": "string", "description": "The column to add up"},
                "rows": {
                    "type": "integer",
                    "description": "Only the first rows (0: all)",
                    "default": 0,
                },
            },
            "required": ["column"],
            "additionalProperties": False,
        },
    }
    registry.clear()
    assert registry.list_tools() == []


def test_the_old_manual_registration_still_works() -> None:
    registry = ToolRegistry()

    def median_revenue() -> float:
        return 107.75

    registry.register(
        ToolSchema(name="median_revenue", description="Median revenue"), median_revenue
    )

    assert registry.get_schema("median_revenue").description == "Median revenue"
    assert registry.get_tool("median_revenue")() == 107.75


def test_validation_of_plan_steps_reports_errors_and_warnings() -> None:
    executor = ToolExecutor(ToolRegistry([load_table, column_total]))

    step = {"tool": "column_total", "sequence": 1, "args": {"column": "revenue", "rows": "1"}}
    valid = executor.validate_tool_call(step)
    assert valid.is_valid
    assert valid.arguments == {"column": "revenue", "rows": 1}
    assert valid.warnings[0].startswith("tool 'column_total', argument 'rows': converted \"1\"")

    unknown = executor.validate_tool_call(
        {"tool": "column_total", "sequence": 2, "args": {"column": "revenue", "colour": "red"}}
    )
    assert unknown.is_valid and unknown.arguments == {"column": "revenue"}
    assert "unknown argument 'colour'" in unknown.warnings[0]

    broken = executor.validate_tool_call(
        {"tool": "column_total", "sequence": 3, "args": {"col": "revenue"}}
    )
    assert not broken.is_valid
    assert [e.split(":")[1].strip() for e in broken.errors] == [
        "missing required argument 'column'",
        "unknown argument 'col'; accepted arguments",
    ]
    assert not executor.validate_tool_call({"tool": "load_dataset", "args": {}}).is_valid
    wrong_type = executor.validate_tool_call({"tool": "column_total", "args": {"column": ["x"]}})
    assert "expected string" in wrong_type.errors[0]


async def test_the_resolver_fills_in_columns_and_paths_before_the_step_runs() -> None:
    charts = ChartTools({"month": "temporal", "region": "categorical", "revenue": "numeric"})
    executor = ToolExecutor(ToolRegistry([charts]))

    results = await executor.execute_all(
        [
            executor_step("plot_line", 1, y="revenue"),
            executor_step("plot_line", 2, y="revenue", x="region"),
        ],
        ToolContext(user_id="ana"),
    )

    assert [r.status for r in results] == [ToolStatus.OK, ToolStatus.OK]
    assert charts.drawn == [
        ("month", "revenue", "charts/ana/01_revenue.png"),
        ("region", "revenue", "charts/ana/02_revenue.png"),
    ]
    assert results[0].call.arguments["output_path"] == "charts/ana/01_revenue.png"
    # The model is not asked for what the resolver fills in.
    assert ToolRegistry([charts]).get_schema("plot_line").parameters[0].required is False


async def test_without_a_temporal_column_the_plan_must_name_x() -> None:
    charts = ChartTools({"region": "categorical", "revenue": "numeric"})
    executor = ToolExecutor(ToolRegistry([charts]))

    [result] = await executor.execute_all([executor_step("plot_line", 1, y="revenue")])

    assert result.status is ToolStatus.INVALID
    assert "'x' is missing" in result.text
    assert charts.drawn == []


async def test_an_llm_plan_runs_step_by_step_through_the_agent() -> None:
    charts = ChartTools({"month": "temporal", "revenue": "numeric"})
    plan = (
        '[{"tool": "load_table", "sequence": 1, "args": {"path": "sales.csv"}},\n'
        ' {"tool": "plot_line", "sequence": 2, "args": {"y": "revenue"}}]'
    )
    backend = ScriptedBackend(
        [f"```json\n{plan}\n```", "The chart is in charts/local/01_revenue.png."]
    )
    agent = DialogAgent(backend=backend, registry=ToolRegistry([load_table, charts]))

    reply = await agent.handle_message("chart revenue by month", user_id="local", chat_id="local")

    assert [r.call.tool_name for r in reply.results] == ["load_table", "plot_line"]
    assert charts.drawn == [("month", "revenue", "charts/local/01_revenue.png")]
    assert reply.text == "The chart is in charts/local/01_revenue.png."
