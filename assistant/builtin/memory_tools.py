"""Memory tools: save a note, and search the user's notes and past conversations.

Both are scoped to the calling user (``ToolContext.user_id``): a model can never read or
write another user's memory, whatever arguments it invents.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory import HitKind, MemoryHit, MemoryInputError, MemoryStore, Note
from tools import Effect, ToolContext, ToolError, ToolParser, tool

MAX_SEARCH_LIMIT = 20
SHOWN_CHARS = 500


def render_note(note: Note) -> str:
    """Describe a saved note for the model."""
    tags = f" (tags: {', '.join(note.tags)})" if note.tags else ""
    return f"Saved note #{note.number}{tags}: {note.content}"


def render_hits(hits: Sequence[MemoryHit]) -> str:
    """List search hits one per line, notes marked as such, each with its full text (a
    message's tool calls left out: they are how it was done, not what was said)."""
    lines = [line for line in map(_hit_line, hits) if line is not None]
    if not lines:
        return "Nothing in the user's notes or past conversations matches."
    return "\n".join(lines)


def _hit_line(hit: MemoryHit) -> str | None:
    day = hit.created_at.date().isoformat()
    if hit.kind is HitKind.NOTE:
        tags = f", tags: {', '.join(hit.tags)}" if hit.tags else ""
        source = f"note #{hit.number}, {day}{tags}"
        said = hit.text
    else:
        source = f"{hit.role or 'message'} message, {day}"
        said = ToolParser.strip_calls(hit.text)
    text = " ".join(said.split())
    if not text:
        return None  # a message that was a tool call and nothing else
    if len(text) > SHOWN_CHARS:
        text = text[: SHOWN_CHARS - 1] + "…"
    return f"- [{source}] {text}"


class MemoryTools:
    """The note and recall tools, bound to one memory store.

    Args:
        store: Where notes are kept and searched.
    """

    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    @tool(llm_format=render_note, timeout=10, effects=[Effect.CHANGES])
    async def save_note(
        self, ctx: ToolContext, content: str, tags: list[str] | None = None
    ) -> Note:
        """Save a note for the user to recall later (facts, passwords, ideas, lists).

        Args:
            content: The text to remember, in full.
            tags: Optional short labels such as ['home', 'wifi'].
        """
        try:
            return await self._store.add_note(ctx.user_id, content, tags)
        except MemoryInputError as exc:  # empty, too long, or over the user's limits
            raise ToolError(str(exc)) from None

    @tool(
        params={"limit": {"minimum": 1, "maximum": MAX_SEARCH_LIMIT}},
        llm_format=render_hits,
        timeout=10,
        parallel=True,
        # Notes are private; past conversations hold what pages and task results said.
        effects=[Effect.READS_PRIVATE, Effect.READS_OUTSIDE],
    )
    async def search_memory(
        self, ctx: ToolContext, query: str, limit: int = 5, notes_only: bool = False
    ) -> list[MemoryHit]:
        """Search the user's saved notes and past conversations; best matches first.

        Args:
            query: Words to look for, e.g. 'wifi password'.
            limit: How many matches to return (1 to 20).
            notes_only: Search only the notes the user saved, not what was said in chats.
        """
        if notes_only:
            return await self._store.search_notes(ctx.user_id, query, limit)
        return await self._store.search_memory(ctx.user_id, query, limit)
