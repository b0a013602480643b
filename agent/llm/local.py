"""A backend that runs a GGUF model in this process (llama-cpp-python), tools included.

The model has no native tool calling, so the backend does what a server with tool support
does: it writes the tools into the prompt (``toolprompt``), decodes under a grammar made from
their schemas (``grammar``; on by default), and hands the agent native ``tool_calls``. One
model serves one request at a time, on one worker thread, off the event loop; requests queue
first come, first served (``queue``), and a long wait is reported while streaming.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections.abc import AsyncGenerator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from agent.llm.base import ChatMessage, LLMResponse, StreamEvent, TextDelta, ToolMode, Usage
from agent.llm.errors import ContextTooSmallError, LLMError, LLMResponseError
from agent.llm.gguf import Generated, GgufModel, ModelSettings, Prompt, check_file
from agent.llm.grammar import ToolGrammar, tool_grammar
from agent.llm.guard import ReplyGuard
from agent.llm.queue import ModelQueue, Monotonic
from agent.llm.toolprompt import read_reply, template_messages
from agent.llm.visible import VisibleText
from tools import ToolDefinition

logger = logging.getLogger(__name__)

MIN_CONTEXT_TOKENS = 576
"""The smallest window in which a short request fits with the tool it needs: the built-in
instructions take about 200 tokens (SmolLM2-135M and Gemma 3 270M, measured) and a quarter of
the window is kept for the answer."""
MIN_ANSWER_TOKENS = 16
"""Fewer free tokens than this after the prompt and there is no room for an answer."""

_END = object()


class LocalBackend:
    """A GGUF model loaded in process; see the module docstring.

    ``mode`` is always ``NATIVE``: tools come in as definitions and calls go out as
    ``tool_calls``, however the model itself writes them.
    """

    def __init__(
        self,
        *,
        model_path: Path | str,
        context_tokens: int = 4096,
        gpu_layers: int = 0,
        threads: int | None = None,
        chat_template: str | None = None,
        grammar: bool = True,
        max_tokens: int = 512,
        temperature: float = 0.2,
        seed: int = 0,
        notice_after: float = 2.0,
        monotonic: Monotonic = time.monotonic,
    ) -> None:
        """Create a backend; the model loads on first use or on ``load()``.

        Args:
            model_path: The GGUF file (``ASSISTANT_LLM_MODEL_PATH``).
            context_tokens: The context window, prompt and answer (``ASSISTANT_LLM_CTX``).
            gpu_layers: Layers offloaded to a GPU, -1 for all (``ASSISTANT_LLM_GPU_LAYERS``).
            threads: CPU threads; ``None`` for every core (``ASSISTANT_LLM_THREADS``).
            chat_template: For a file without a chat template: a built-in name or a Jinja
                file (``ASSISTANT_LLM_CHAT_TEMPLATE``).
            grammar: Decode under the tools' grammar (``ASSISTANT_LLM_GRAMMAR``).
            max_tokens: The longest answer, in tokens (``ASSISTANT_LLM_MAX_TOKENS``).
            temperature: Sampling temperature.
            seed: Sampling seed, for repeatable runs.
            notice_after: Seconds a request waits for the model before it is told its place.
            monotonic: The clock that measures waits.

        Raises:
            LLMModelError: the file is missing or is not GGUF.
            ValueError: a number is out of range.
        """
        if context_tokens < MIN_CONTEXT_TOKENS:
            raise ValueError(
                f"context_tokens must be {MIN_CONTEXT_TOKENS} or more, got {context_tokens!r}"
            )
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be 1 or more, got {max_tokens!r}")
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be 1 or more, got {threads!r}")
        path = Path(model_path).expanduser()
        check_file(path)
        self._settings = ModelSettings(
            path=path,
            context_tokens=context_tokens,
            gpu_layers=gpu_layers,
            threads=threads,
            chat_template=chat_template,
            seed=seed,
        )
        self.grammar = grammar
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._model: GgufModel | None = None
        self._load_lock = asyncio.Lock()
        self._queue = ModelQueue(notice_after=notice_after, monotonic=monotonic)
        # One thread owns the model: llama.cpp's context must not be used from two at once.
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="local-llm")

    @property
    def name(self) -> str:
        """The model file's name."""
        return self._settings.path.name

    @property
    def mode(self) -> ToolMode:
        """Always ``NATIVE`` (see the class docstring)."""
        return ToolMode.NATIVE

    @property
    def context_tokens(self) -> int:
        """The context window in tokens."""
        return self._settings.context_tokens

    @property
    def answer_tokens(self) -> int:
        """Tokens kept free for the answer: ``max_tokens``, at most a quarter of the window."""
        return min(self._max_tokens, self._settings.context_tokens // 4)

    @property
    def waiting(self) -> int:
        """Requests running or waiting for the model."""
        return len(self._queue)

    async def load(self) -> None:
        """Load the model now (it otherwise loads on first use).

        Raises:
            LLMModelError: the model cannot be used; the message says why and what to set.
        """
        await self._loaded()

    async def count_tokens(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> int:
        """Return the size of the prompt these messages and tools make, in tokens."""
        model = await self._loaded()
        return len(model.prompt(template_messages(messages, tools)).tokens)

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        """Return the model's next message (``stream`` without the pieces)."""
        async for event in self.stream(messages, tools=tools):
            if isinstance(event, LLMResponse):
                return event
        raise LLMResponseError("the local model's stream ended without a response")

    async def stream(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        """Yield ``Waiting`` notices while queued, the text as it is decoded, then the response.

        Text that may open a call is held back until the reply is known; a call is never
        shown. Closing the iterator (or cancelling its task) stops the decoding at the next
        token, and the model goes to the next request once it has stopped.

        Raises:
            ContextTooSmallError: the prompt leaves no room for an answer.
            LLMModelError: the model cannot be loaded.
            LLMResponseError: llama.cpp failed while decoding.
        """
        model = await self._loaded()
        written_out = template_messages(messages, tools)
        prompt = model.prompt(written_out)
        guard = ReplyGuard(
            line for m in written_out if m["role"] == "system" for line in m["content"].split("\n")
        )
        room = self._settings.context_tokens - len(prompt.tokens)
        if room < MIN_ANSWER_TOKENS:
            raise self._too_small(len(prompt.tokens))
        grammar = tool_grammar(tools) if tools and self.grammar else None
        ticket = self._queue.join()
        cancel = threading.Event()
        worker: asyncio.Future[Generated] | None = None
        try:
            async for notice in self._queue.wait(ticket):
                yield notice
            pieces: asyncio.Queue[object] = asyncio.Queue()
            worker = self._start(
                model, prompt, min(self._max_tokens, room), grammar, cancel, guard, pieces
            )
            written: list[str] = []
            held = VisibleText()
            while (piece := await pieces.get()) is not _END:
                assert isinstance(piece, str)
                written.append(piece)
                if shown := held.feed(piece):
                    yield TextDelta(shown)
            generated = self._outcome(worker)
            reply = read_reply(guard.cut("".join(written)), tools)
            if rest := held.finish(reply.text):
                yield TextDelta(rest)
            yield LLMResponse(
                text=reply.text,
                tool_calls=reply.calls,
                usage=Usage(len(prompt.tokens), generated.completion_tokens),
                finish_reason="tool_calls" if reply.calls else generated.finish_reason,
            )
        finally:
            cancel.set()
            if worker is None or worker.done():
                self._queue.leave(ticket)
            else:
                worker.add_done_callback(lambda _: self._queue.leave(ticket))

    async def aclose(self) -> None:
        """Stop decoding, free the model and the worker thread."""
        model, self._model = self._model, None
        if model is not None:
            # Queued behind any decoding still running on the model's own thread.
            await asyncio.get_running_loop().run_in_executor(self._thread, model.close)
        self._thread.shutdown(wait=False, cancel_futures=True)

    async def _loaded(self) -> GgufModel:
        if self._model is None:
            async with self._load_lock:
                if self._model is None:
                    loop = asyncio.get_running_loop()
                    started = time.perf_counter()
                    self._model = await loop.run_in_executor(
                        self._thread, GgufModel.load, self._settings
                    )
                    logger.info(
                        "loaded %s in %.2fs (context %d tokens)",
                        self.name,
                        time.perf_counter() - started,
                        self.context_tokens,
                    )
        return self._model

    def _start(
        self,
        model: GgufModel,
        prompt: Prompt,
        max_tokens: int,
        grammar: ToolGrammar | None,
        cancel: threading.Event,
        guard: ReplyGuard,
        pieces: asyncio.Queue[object],
    ) -> asyncio.Future[Generated]:
        """Start decoding on the model's thread; its pieces, then ``_END``, go to ``pieces``.

        Decoding stops early when ``guard`` sees the model loop or recite its prompt.
        """
        loop = asyncio.get_running_loop()
        looped = threading.Event()

        def emit(text: str) -> None:
            if guard.feed(text):
                looped.set()
            _hand_over(loop, pieces, text)

        decode = functools.partial(
            model.generate,
            prompt,
            max_tokens=max_tokens,
            temperature=self._temperature,
            grammar=grammar,
            cancelled=lambda: cancel.is_set() or looped.is_set(),
            emit=emit,
        )
        worker = loop.run_in_executor(self._thread, decode)
        worker.add_done_callback(lambda _: pieces.put_nowait(_END))
        return worker

    def _outcome(self, worker: asyncio.Future[Generated]) -> Generated:
        try:
            return worker.result()
        except LLMError:
            raise
        except Exception as exc:  # llama.cpp's own failures, translated at the boundary
            raise LLMResponseError(f"the local model {self.name!r} failed: {exc}") from exc

    def _too_small(self, needed: int) -> ContextTooSmallError:
        return ContextTooSmallError(
            f"the request takes {needed:,} tokens, which leaves no room for an answer in the "
            f"model's context of {self.context_tokens:,} tokens; write a shorter message, "
            "start a new conversation (/new), or raise ASSISTANT_LLM_CTX",
            needed=needed + MIN_ANSWER_TOKENS,
            context=self.context_tokens,
        )


def _hand_over(loop: asyncio.AbstractEventLoop, pieces: asyncio.Queue[object], text: str) -> None:
    """Pass a decoded piece from the model's thread to the event loop."""
    loop.call_soon_threadsafe(pieces.put_nowait, text)
