"""A small registry shared by the registry and catalog tests: plain function tools, a class
whose methods are tools, and a per-user dynamic enum (``cancel_task.task_id``)."""

from tools import ToolContext, ToolRegistry, tool


@tool(aliases=["now"])
def get_time(tz: str = "UTC") -> str:
    """Tell the time.

    Args:
        tz: IANA zone name.
    """
    return tz


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Tasks:
    """A domain object whose tools are its decorated methods."""

    def __init__(self, ids_by_user: dict[str, list[str]]) -> None:
        self.ids_by_user = ids_by_user

    async def _ids(self, ctx: ToolContext) -> list[str]:
        return self.ids_by_user.get(ctx.user_id, [])

    @tool(params={"task_id": {"enum": _ids}})
    def cancel_task(self, task_id: str) -> str:
        """Cancel one of your tasks.

        Args:
            task_id: The task's id.
        """
        return task_id

    @tool
    def list_tasks(self) -> list[str]:
        """List your tasks."""
        return [i for ids in self.ids_by_user.values() for i in ids]

    def helper(self) -> None:
        """Not a tool."""


def make_registry() -> ToolRegistry:
    return ToolRegistry([get_time, add, Tasks({"alice": ["a1b2c3", "d4e5f6"]})])
