"""The ``agent_task`` runner: the agent answers the task's prompt in a fresh context, and the
answer is delivered."""

from __future__ import annotations

from tasks.execution import AgentTaskData
from tasks.models import RunStatus, Task, TaskRun
from tasks.protocols import AgentRunner, DeliveryKind
from tasks.runners.base import Deliverer, RunReport, wrong_data


class AgentTaskRunner:
    """Runs the agent on the task's prompt in a fresh context and delivers its answer."""

    def __init__(self, deliverer: Deliverer, agent: AgentRunner | None) -> None:
        self._deliverer = deliverer
        self._agent = agent

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Ask the agent, then deliver the answer as a RESULT."""
        data = task.execution
        if not isinstance(data, AgentTaskData):
            return wrong_data(task)
        if self._agent is None:
            return RunReport(
                RunStatus.FAILED,
                error="agent tasks need an agent, and none is configured for the scheduler",
            )
        answer = (
            await self._agent.run_task(data.prompt, owner_id=task.owner_id, chat_id=task.chat_id)
        ).strip()
        if not answer:
            return RunReport(RunStatus.FAILED, error="the agent returned an empty answer")
        return await self._deliverer.report(
            task, run, DeliveryKind.RESULT, f"{task.description}\n\n{answer}", _brief(answer)
        )


def _brief(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
