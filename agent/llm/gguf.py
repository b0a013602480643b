"""A GGUF model loaded in this process with llama-cpp-python: its chat template and decoding.

Everything here is synchronous and meant to run on the one worker thread that owns the model
(``agent.llm.local`` does the async side). llama-cpp-python is imported only when a model
is loaded, so the assistant runs without it when no local model is configured.
"""

from __future__ import annotations

import ctypes
import logging
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.llm.errors import LLMModelError
from agent.llm.grammar import CALL_OPENERS, ToolGrammar
from agent.llm.templates import choose_template, turn_markers
from agent.llm.toolprompt import TemplateMessage

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter
    from llama_cpp.llama_grammar import LlamaGrammar

GGUF_MAGIC = b"GGUF"
INSTALL_HINT = (
    "install it with: pip install -e '.[local]' (the first install compiles llama.cpp: "
    "about 4 minutes on 2 cores; pip keeps the built wheel for later installs)"
)
REPEAT_PENALTY = 1.1
"""llama.cpp's penalty on tokens of the last 64 written, for answers (never for calls)."""

logger = logging.getLogger(__name__)
native_logger = logging.getLogger("llama_cpp.native")
"""Where llama.cpp's own log lines go, at DEBUG (``ASSISTANT_LOG_LEVEL=DEBUG`` shows them)."""
_log_callback: object = None


@dataclass(frozen=True, slots=True)
class Prompt:
    """A conversation written out with the chat template and tokenized.

    Attributes:
        tokens: The prompt's tokens.
        stop: Texts that end the model's turn.
        stop_tokens: Tokens that end it: the template's turn markers.
    """

    tokens: list[int]
    stop: list[str]
    stop_tokens: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Generated:
    """How a decoding ended.

    Attributes:
        completion_tokens: Tokens the model wrote.
        finish_reason: ``"stop"`` (it ended its turn), ``"length"`` (``max_tokens`` reached)
            or ``"cancelled"``.
    """

    completion_tokens: int
    finish_reason: str


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """How to load a model.

    Attributes:
        path: The GGUF file (``ASSISTANT_LLM_MODEL_PATH``).
        context_tokens: The context window (``ASSISTANT_LLM_CTX``).
        gpu_layers: Layers to offload to a GPU; -1 for all (``ASSISTANT_LLM_GPU_LAYERS``).
        threads: CPU threads (``ASSISTANT_LLM_THREADS``); ``None`` for every core.
        chat_template: A built-in template name or a Jinja file, for files without their
            own template (``ASSISTANT_LLM_CHAT_TEMPLATE``); ``None`` uses the file's own.
        seed: The sampling seed, for repeatable runs.
    """

    path: Path
    context_tokens: int = 4096
    gpu_layers: int = 0
    threads: int | None = None
    chat_template: str | None = None
    seed: int = 0


def check_file(path: Path) -> None:
    """Check that ``path`` is a readable GGUF file, cheaply (no llama.cpp involved).

    Raises:
        LLMModelError: it is missing, not a file, unreadable, or not GGUF.
    """
    if not path.exists():
        raise LLMModelError(
            f"ASSISTANT_LLM_MODEL_PATH: there is no file at {str(path)!r}; set it to a .gguf "
            "model file"
        )
    if not path.is_file():
        raise LLMModelError(f"ASSISTANT_LLM_MODEL_PATH: {str(path)!r} is not a file")
    try:
        with path.open("rb") as file:
            head = file.read(4)
    except OSError as exc:
        raise LLMModelError(f"ASSISTANT_LLM_MODEL_PATH: cannot read {str(path)!r}: {exc}") from None
    if head != GGUF_MAGIC:
        raise LLMModelError(
            f"ASSISTANT_LLM_MODEL_PATH: {str(path)!r} is not a GGUF model (it starts with "
            f"{head!r}, a GGUF file with b'GGUF'); convert it or download the .gguf version"
        )


class GgufModel:
    """A loaded model with its chat template; use it from one thread at a time."""

    def __init__(
        self,
        llama: Llama,
        formatter: Jinja2ChatFormatter,
        stop: list[str],
        stop_tokens: frozenset[int] = frozenset(),
    ) -> None:
        self._llama = llama
        self._formatter = formatter
        self._stop = stop
        self._stop_tokens = stop_tokens
        self._grammars: dict[str, LlamaGrammar] = {}

    @classmethod
    def load(cls, settings: ModelSettings) -> GgufModel:
        """Load the model named by ``settings``.

        Raises:
            LLMModelError: one clear message for every reason it cannot be used.
        """
        check_file(settings.path)
        try:
            from llama_cpp import Llama
        except ImportError:
            raise LLMModelError(
                "a local model (ASSISTANT_LLM_MODEL_PATH) needs llama-cpp-python, which is "
                f"not installed; {INSTALL_HINT}"
            ) from None
        _check_memory(settings.path)
        _route_native_logs()
        try:
            llama = Llama(
                model_path=str(settings.path),
                n_ctx=settings.context_tokens,
                n_gpu_layers=settings.gpu_layers,
                n_threads=settings.threads or os.cpu_count() or 1,
                n_threads_batch=settings.threads or os.cpu_count() or 1,
                seed=settings.seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise LLMModelError(
                f"llama.cpp could not load {str(settings.path)!r} ({exc}): the file may be "
                "damaged, of a model architecture this llama-cpp-python does not know, or "
                f"too big for the memory left ({_memory_note(settings.path)}); "
                "check ASSISTANT_LLM_MODEL_PATH, or lower ASSISTANT_LLM_CTX"
            ) from None
        template = _template(llama, settings)
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        eos = llama.token_eos()
        eos_text = llama._model.token_get_text(eos) if eos != -1 else ""
        bos = llama.token_bos()
        bos_text = llama._model.token_get_text(bos) if bos != -1 else ""
        formatter = Jinja2ChatFormatter(
            template=template, eos_token=eos_text, bos_token=bos_text, stop_token_ids=[eos]
        )
        markers = turn_markers(template)
        stop = list(dict.fromkeys(text for text in (eos_text, *markers) if text))
        return cls(llama, formatter, stop, _single_tokens(llama, markers))

    @property
    def context_tokens(self) -> int:
        """The context window the model was loaded with."""
        return int(self._llama.n_ctx())

    def prompt(self, messages: list[TemplateMessage]) -> Prompt:
        """Write ``messages`` out with the chat template and tokenize them.

        Raises:
            LLMModelError: the template refused the conversation.
        """
        try:
            written = self._formatter(messages=messages)  # type: ignore[arg-type]
        except Exception as exc:  # a Jinja template may raise anything
            raise LLMModelError(
                f"the model's chat template failed on this conversation: {exc}"
            ) from exc
        tokens = self._llama.tokenize(
            written.prompt.encode("utf-8"), add_bos=not written.added_special, special=True
        )
        return Prompt(tokens=tokens, stop=self._stop, stop_tokens=self._stop_tokens)

    def generate(
        self,
        prompt: Prompt,
        *,
        max_tokens: int,
        temperature: float,
        grammar: ToolGrammar | None,
        cancelled: Callable[[], bool],
        emit: Callable[[str], None],
    ) -> Generated:
        """Decode the model's answer to ``prompt``, passing each piece of text to ``emit``.

        Under ``grammar`` only the first token is chosen with the full grammar (see
        ``agent.llm.grammar``): a call is then decoded whole under the call grammar, an
        answer freely up to any character that may open a call. Stops between two tokens
        once ``cancelled()`` is true.
        """
        if grammar is None:
            finish = self._decode(
                prompt.tokens, max_tokens, temperature, prompt, None, cancelled, emit
            )
            return self._generated(prompt, finish)
        first, finish = self._first_piece(prompt, grammar.either, temperature)
        if first.lstrip().startswith("{"):
            finish = self._decode(
                prompt.tokens, max_tokens, temperature, prompt, grammar.call, cancelled, emit
            )
            return self._generated(prompt, finish)
        if not first or finish != "length" or max_tokens <= 1:
            emit(first)
            return self._generated(prompt, finish)
        emit(first)
        started = prompt.tokens + self._llama.tokenize(first.encode("utf-8"), add_bos=False)
        finish = self._decode(
            started, max_tokens - 1, temperature, prompt, None, cancelled, emit, CALL_OPENERS
        )
        return self._generated(prompt, finish)

    def _first_piece(self, prompt: Prompt, grammar: str, temperature: float) -> tuple[str, str]:
        """The first token of the reply, chosen under ``grammar``, and why decoding stopped."""
        whole = self._llama.create_completion(
            prompt=prompt.tokens,
            max_tokens=1,
            temperature=temperature,
            stop=prompt.stop,
            grammar=self._grammar(grammar),
        )
        if isinstance(whole, Iterator):
            raise TypeError("llama-cpp-python streamed although asked for a whole answer")
        choice = whole["choices"][0]
        return choice["text"], choice["finish_reason"] or "stop"

    def _decode(
        self,
        tokens: list[int],
        max_tokens: int,
        temperature: float,
        prompt: Prompt,
        grammar: str | None,
        cancelled: Callable[[], bool],
        emit: Callable[[str], None],
        also_stop: Sequence[str] = (),
    ) -> str:
        """Decode from ``tokens``, streaming pieces to ``emit``; return the finish reason.

        Decoding stops at the prompt's stop texts and ``also_stop``, and one token after a
        turn marker (llama.cpp checks its stopping criteria against the tokens already
        evaluated; the marker itself writes no text). An answer is decoded with a repeat
        penalty; a call is not (JSON repeats quotes and braces by nature).
        """
        marker = _MarkerStop(prompt.stop_tokens)
        chunks = self._llama.create_completion(
            prompt=tokens,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=[*prompt.stop, *also_stop],
            grammar=self._grammar(grammar) if grammar else None,
            repeat_penalty=1.0 if grammar else REPEAT_PENALTY,
            stopping_criteria=_criteria(marker),
            stream=True,
        )
        if not isinstance(chunks, Generator):
            raise TypeError("llama-cpp-python answered whole although asked to stream")
        finish = "stop"
        try:
            for chunk in chunks:
                if cancelled():
                    return "cancelled"
                choice = chunk["choices"][0]
                if choice["text"]:
                    emit(choice["text"])
                if choice["finish_reason"]:
                    finish = choice["finish_reason"]
        finally:
            chunks.close()
        return "stop" if marker.fired else finish

    def _generated(self, prompt: Prompt, finish: str) -> Generated:
        written = max(0, int(self._llama.n_tokens) - len(prompt.tokens))
        return Generated(completion_tokens=written, finish_reason=finish)

    def close(self) -> None:
        """Free the model's memory."""
        self._llama.close()

    def _grammar(self, text: str) -> LlamaGrammar:
        found = self._grammars.get(text)
        if found is None:
            from llama_cpp.llama_grammar import LlamaGrammar

            if len(self._grammars) > 32:
                self._grammars.clear()
            found = self._grammars[text] = LlamaGrammar.from_string(text, verbose=False)
        return found


class _MarkerStop:
    """A stopping criterion: true once the last evaluated token is a turn marker."""

    def __init__(self, tokens: frozenset[int]) -> None:
        self._tokens = tokens
        self.fired = False

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        if self._tokens and len(input_ids) and int(input_ids[-1]) in self._tokens:
            self.fired = True
        return self.fired


def _criteria(marker: _MarkerStop) -> Any:
    from llama_cpp import StoppingCriteriaList

    return StoppingCriteriaList([marker])


def _single_tokens(llama: Llama, markers: Sequence[str]) -> frozenset[int]:
    """The tokens of the markers that the model's vocabulary holds as one token."""
    found = set()
    for marker in markers:
        tokens = llama.tokenize(marker.encode("utf-8"), add_bos=False, special=True)
        if len(tokens) == 1:
            found.add(tokens[0])
    return frozenset(found)


def _route_native_logs() -> None:
    """Send llama.cpp's log lines to ``native_logger`` instead of the process's stderr.

    llama-cpp-python's own callback prints some of them (Gemma 3's "llama_kv_cache_iswa:
    using full-size SWA cache") even with ``verbose=False``.
    """
    global _log_callback
    if _log_callback is not None:
        return
    import llama_cpp

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
    def log(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        if native_logger.isEnabledFor(logging.DEBUG):
            native_logger.debug("%s", text.decode("utf-8", errors="replace").rstrip())

    llama_cpp.llama_log_set(log, ctypes.c_void_p(0))
    _log_callback = log  # kept alive: llama.cpp holds only a C pointer to it


def _template(llama: Llama, settings: ModelSettings) -> str:
    """The chat template the model is written with, said once in the log."""

    def one_token(text: str) -> bool:
        return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)) == 1

    try:
        chosen = choose_template(llama.metadata, one_token, settings.chat_template)
    except LLMModelError as exc:
        llama.close()
        raise LLMModelError(f"{settings.path.name!r}: {exc}") from None
    logger.info("chat template of %s: %s", settings.path.name, chosen.source)
    return chosen.template


def _available_memory() -> int | None:
    """Bytes of memory available (Linux), or ``None`` when unknown."""
    try:
        lines = Path("/proc/meminfo").read_text(encoding="ascii").splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def _memory_note(path: Path) -> str:
    available = _available_memory()
    size = path.stat().st_size
    known = f", {available / 2**20:,.0f} MB available" if available is not None else ""
    return f"the file is {size / 2**20:,.0f} MB{known}"


def _check_memory(path: Path) -> None:
    available = _available_memory()
    if available is not None and path.stat().st_size > available:
        raise LLMModelError(
            f"too little memory to load {str(path)!r} ({_memory_note(path)}); free some "
            "memory, pick a smaller (more quantized) model, or offload layers to a GPU "
            "with ASSISTANT_LLM_GPU_LAYERS"
        )
