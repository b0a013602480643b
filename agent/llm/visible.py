"""What of a reply a person may see while the model is still writing it.

In the text contract a model writes its tool calls as text (a fenced JSON block, a bare JSON
object, a ``<tool_call>`` tag, a Python-style list...). Those must never be shown, and while
they stream it is not yet known whether a ``{`` opens a call or belongs to the prose. So the
text is shown up to the first character that may open a call; the rest waits until the whole
reply is known, and then only what remains once the calls are stripped is shown.
"""

from __future__ import annotations

from agent.llm.grammar import CALL_OPENERS

_MAY_OPEN_A_CALL = frozenset(CALL_OPENERS)


class VisibleText:
    """Follows one round's streamed text and says which part of it may be shown now."""

    def __init__(self) -> None:
        self._shown = ""
        self._space = ""  # blank space written last: shown only once text follows it
        self._held = False

    def feed(self, piece: str) -> str:
        """Take the next piece the model wrote; return what of it to show now ("" if none)."""
        if self._held:
            return ""
        cut = next((i for i, char in enumerate(piece) if char in _MAY_OPEN_A_CALL), None)
        if cut is not None:
            self._held = True
            piece = piece[:cut]
        text = (self._space + piece) if self._shown else piece.lstrip()
        visible = text.rstrip()
        self._space = text[len(visible) :] if visible or self._shown else ""
        self._shown += visible
        return visible

    def finish(self, final: str) -> str:
        """Return what is left to show now that the round's text is known: ``final`` is what
        the person sees of it (calls stripped). Nothing, when it does not continue what was
        shown (the reply's text then stands on its own)."""
        if not final.startswith(self._shown):
            return ""
        rest, self._shown = final[len(self._shown) :], final
        return rest
