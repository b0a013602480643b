"""Seed 000, the base-agent design: a domain agent subclasses the agent, declares its tools as
decorated methods with static ``params`` (enums computed from ``self``), and overrides the
system-message and finalize hooks. Written the way that design writes it, run through
``DialogAgent`` with a scripted model."""

from __future__ import annotations

import json
from typing import Any

from agent.compat import DialogAgent
from agent.llm import LLMBackend, LLMResponse, Role, ScriptedBackend, ToolMode
from tools import ToolCall, ToolContext, ToolStatus, tool, tool_definitions


class Depot:
    """The agent's domain state: bike stations and how many bikes each holds."""

    def __init__(self) -> None:
        self.bikes = {"harbour": 12, "station": 3, "campus": 7}
        self.closed: list[str] = []
        self.online = True

    def open_stations(self) -> list[str]:
        if not self.online:
            raise ConnectionError("the depot database is offline")
        return sorted(name for name in self.bikes if name not in self.closed)


def at_most_five(args: dict[str, Any]) -> dict[str, Any]:
    """Preprocess: a van carries five bikes at most."""
    return {**args, "count": min(args.get("count") or 1, 5)}


class FleetAgent(DialogAgent):
    def __init__(self, *, backend: LLMBackend, depot: Depot) -> None:
        super().__init__(backend=backend)
        self.depot = depot

    async def _system_messages(self) -> list[dict[str, str]]:
        counts = ", ".join(f"{name}: {n}" for name, n in self.depot.bikes.items())
        return [{"role": "system", "content": f"Bikes per station: {counts}"}]

    def _finalize_response(self, text: str) -> str:
        return text.rstrip("!.") + "."

    @tool(
        name="move_bikes",
        description="Move bikes from one station to another",
        params={
            "source": {"type": "string", "enum": lambda self: self.depot.open_stations()},
            "target": {"type": "string", "enum": lambda self: self.depot.open_stations()},
            "count": {"type": "integer", "minimum": 1},
        },
        required=["source", "target"],
        preprocess=at_most_five,
        postprocess=lambda moved: f"{moved} bikes moved",
    )
    def move_bikes(self, source: str, target: str, count: int) -> int:
        if target in self.depot.closed:
            raise ValueError(f"{target} is closed")
        moved = min(count, self.depot.bikes[source])
        self.depot.bikes[source] -= moved
        self.depot.bikes[target] += moved
        return moved

    @tool(
        name="close_station",
        description="Close a station for maintenance",
        params={"station": {"type": "string"}},
        required=["station"],
    )
    def close_station(self, station):  # type: ignore[no-untyped-def]
        self.depot.closed.append(station)
        return f"{station} closed"

    @tool(
        name="forecast_demand",
        description="Forecast tomorrow's demand at a station",
        params={"station": {"type": "string"}},
        required=["station"],
    )
    async def forecast_demand(self, station: str) -> str:
        if station not in self.depot.bikes:
            raise KeyError(f"no station called {station}")
        return f"{station}: 20 rides expected"


def native(*calls: tuple[str, dict[str, Any]]) -> LLMResponse:
    """A model reply with function calls, as a natively tool-calling model sends them."""
    return LLMResponse(
        tool_calls=tuple(
            ToolCall(name, args, raw_json=json.dumps(args), id=f"fc_{i}")
            for i, (name, args) in enumerate(calls)
        )
    )


def fleet(replies: list[str | LLMResponse]) -> tuple[FleetAgent, ScriptedBackend, Depot]:
    backend = ScriptedBackend(replies, mode=ToolMode.NATIVE)
    depot = Depot()
    return FleetAgent(backend=backend, depot=depot), backend, depot


async def test_tool_defs_carry_static_params_and_enums_computed_from_self() -> None:
    agent, _, depot = fleet([])
    depot.closed.append("campus")

    definitions = {d["name"]: d for d in agent._build_tool_defs()}

    assert set(definitions) == {"move_bikes", "close_station", "forecast_demand"}
    move = definitions["move_bikes"]
    assert move["description"] == "Move bikes from one station to another"
    assert move["parameters"]["required"] == ["source", "target"]
    assert move["parameters"]["properties"]["source"]["enum"] == ["harbour", "station"]
    assert move["parameters"]["properties"]["count"] == {"type": "integer", "minimum": 1}
    close = definitions["close_station"]["parameters"]
    assert close["properties"] == {"station": {"type": "string"}}
    # The agent resolves the same values for each user's turn.
    ctx = await agent.registry.prepare(ToolContext(user_id="ops"))
    [prepared] = [d for d in tool_definitions(agent.registry, ctx) if d.name == "move_bikes"]
    assert prepared.parameters == move["parameters"]


async def test_a_function_call_runs_the_method_with_pre_and_postprocessing_and_the_hooks() -> None:
    agent, backend, depot = fleet(
        [native(("move_bikes", {"source": "harbour", "target": "station", "count": 9})), "Done!"]
    )

    reply = await agent.chat("move nine bikes from the harbour to the station")

    assert reply == "Done."
    assert depot.bikes == {"harbour": 7, "station": 8, "campus": 7}
    first = backend.calls[0]
    assert first.messages[1].role is Role.SYSTEM
    assert first.messages[1].content.startswith("Bikes per station: harbour: 12")
    assert first.tools is not None and {t.name for t in first.tools} >= {"move_bikes"}
    tool_message = backend.calls[1].messages[-1]
    assert (tool_message.role, tool_message.content) == (Role.TOOL, "5 bikes moved")


async def test_a_parameter_the_required_list_leaves_out_may_be_left_out() -> None:
    agent, _, depot = fleet(
        [native(("move_bikes", {"source": "campus", "target": "station"})), "Moved one."]
    )

    assert await agent.chat("send a bike from campus to the station") == "Moved one."
    assert depot.bikes["campus"] == 6


async def test_an_exception_in_a_tool_goes_back_to_the_model_as_its_result() -> None:
    agent, backend, _ = fleet(
        [native(("forecast_demand", {"station": "airport"})), "There is no airport station!"]
    )

    reply = await agent.handle_message("demand at the airport?", user_id="ops", chat_id="ops")

    assert reply.text == "There is no airport station."
    assert reply.results[0].status is ToolStatus.ERROR
    assert "no station called airport" in backend.calls[1].messages[-1].content


async def test_calls_in_one_reply_run_in_order() -> None:
    agent, _, depot = fleet(
        [
            native(
                ("close_station", {"station": "campus"}),
                ("move_bikes", {"source": "harbour", "target": "campus", "count": 2}),
            ),
            "Closed campus.",
        ]
    )

    reply = await agent.handle_message("close campus, then refill it", user_id="o", chat_id="o")

    # The second call ran after the first: campus was closed by then.
    assert [r.status for r in reply.results] == [ToolStatus.OK, ToolStatus.ERROR]
    assert "campus is closed" in reply.results[1].text
    assert depot.closed == ["campus"] and depot.bikes["harbour"] == 12


async def test_an_enum_that_fails_costs_only_its_own_tool() -> None:
    agent, backend, depot = fleet(
        [native(("forecast_demand", {"station": "harbour"})), "20 rides tomorrow."]
    )
    depot.online = False

    assert await agent.chat("how busy will the harbour be?") == "20 rides tomorrow."
    tools = {t.name: t for t in backend.calls[0].tools or ()}
    assert set(tools) == {"move_bikes", "close_station", "forecast_demand"}
    assert "enum" not in tools["move_bikes"].parameters["properties"]["source"]
