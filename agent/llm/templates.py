"""Chat templates, and which one a GGUF file is written with (``choose_template``).

A chat template turns a conversation into the one string a model was trained to continue. Most
GGUF files carry their own (``tokenizer.chat_template``); for those that do not, the template
of the model family the file names (``general.architecture``) is used, and
``ASSISTANT_LLM_CHAT_TEMPLATE`` overrides both: one of these names, or a file holding a Jinja
template in the Hugging Face format.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.llm.errors import LLMModelError

CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""ChatML (Qwen, SmolLM, many fine-tunes): ``<|im_start|>role ... <|im_end|>``."""

GEMMA = (
    "{{ bos_token }}"
    "{% set system = messages[0]['content'] + '\\n\\n' "
    "if messages and messages[0]['role'] == 'system' else '' %}"
    "{% for message in messages if message['role'] != 'system' %}"
    "{% set role = 'model' if message['role'] == 'assistant' else 'user' %}"
    "{{ '<start_of_turn>' + role + '\\n' + (system if loop.first else '') "
    "+ message['content'] | trim + '<end_of_turn>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{% endif %}"
)
"""Gemma 2 and 3: the system prompt opens the first user turn; the assistant is ``model``."""

LLAMA3 = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' "
    "+ message['content'] | trim + '<|eot_id|>' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}"
    "{% endif %}"
)
"""Llama 3 and its fine-tunes: ``<|start_header_id|>role<|end_header_id|> ... <|eot_id|>``."""

LLAMA2 = (
    "{{ bos_token }}"
    "{% set system = messages[0]['content'] + '\n\n' "
    "if messages and messages[0]['role'] == 'system' else '' %}"
    "{% for message in messages if message['role'] != 'system' %}"
    "{% if message['role'] == 'user' %}"
    "{{ '[INST] ' + (system if loop.first else '') + message['content'] | trim + ' [/INST]' }}"
    "{% else %}{{ ' ' + message['content'] | trim + eos_token }}{% endif %}"
    "{% endfor %}"
)
"""Llama 2 and Mistral: ``[INST] ... [/INST]``, the system prompt opening the first turn."""

PHI3 = (
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\n' + message['content'] + '<|end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %}"
)
"""Phi-3 and Phi-4: ``<|role|> ... <|end|>``."""

BUILTIN_TEMPLATES = {
    "chatml": CHATML,
    "gemma": GEMMA,
    "llama3": LLAMA3,
    "llama2": LLAMA2,
    "phi3": PHI3,
}
"""The templates ``ASSISTANT_LLM_CHAT_TEMPLATE`` may name."""

FAMILIES = {
    "gemma": "gemma",
    "gemma2": "gemma",
    "gemma3": "gemma",
    "gemma3n": "gemma",
    "qwen": "chatml",
    "qwen2": "chatml",
    "qwen2moe": "chatml",
    "qwen3": "chatml",
    "qwen3moe": "chatml",
    "smollm3": "chatml",
    "phi3": "phi3",
    "mistral": "llama2",
}
"""The template of each architecture (``general.architecture``) that has one of its own.
``llama``, shared by Llama 2 and 3, Mistral and SmolLM, is told apart by the vocabulary."""

_MARKERS = (
    ("<|start_header_id|>", "llama3"),
    ("<|im_start|>", "chatml"),
    ("<start_of_turn>", "gemma"),
    ("<|assistant|>", "phi3"),
)
"""A turn marker the vocabulary holds as one token, and the template that writes it."""

TEMPLATE_KEY = "tokenizer.chat_template"
ARCHITECTURE_KEY = "general.architecture"

TURN_MARKERS = (
    "<|im_start|>",
    "<|im_end|>",
    "<start_of_turn>",
    "<end_of_turn>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|end|>",
    "<|endoftext|>",
    "[INST]",
)
"""Texts that open or close a turn in common chat templates. A model that writes one has
ended its answer: what follows is a turn it invents (``user``, the tools, ...)."""


@dataclass(frozen=True, slots=True)
class ChosenTemplate:
    """A model's chat template and where it came from.

    Attributes:
        template: The Jinja template.
        source: Where it came from, for the log: "the file's own", "gemma, for the
            architecture 'gemma3'", "chatml, from ASSISTANT_LLM_CHAT_TEMPLATE".
    """

    template: str
    source: str


def choose_template(
    metadata: Mapping[str, str], one_token: Callable[[str], bool], setting: str | None = None
) -> ChosenTemplate:
    """The chat template of a GGUF file: the setting, else its own, else its family's.

    Args:
        metadata: The file's metadata (``tokenizer.chat_template``, ``general.architecture``).
        one_token: Whether the vocabulary holds a text as one token (tells the ``llama``
            family's members apart by their turn markers).
        setting: ``ASSISTANT_LLM_CHAT_TEMPLATE``, when set.

    Raises:
        LLMModelError: the setting names no template, or the file has none and its
            architecture is not one whose template is known.
    """
    if setting:
        return ChosenTemplate(
            resolve_template(setting), f"{setting}, from ASSISTANT_LLM_CHAT_TEMPLATE"
        )
    own = metadata.get(TEMPLATE_KEY)
    if own:
        return ChosenTemplate(str(own), f"the file's own ({TEMPLATE_KEY})")
    architecture = str(metadata.get(ARCHITECTURE_KEY, "")).lower()
    name = FAMILIES.get(architecture)
    if name is None:
        name = next((each for marker, each in _MARKERS if one_token(marker)), None)
        if name is None and architecture == "llama":
            name = "llama2"
    if name is None:
        raise LLMModelError(
            f"the file has no chat template and its architecture {architecture or '(none)'!r} "
            "is not one whose template is known, so it cannot be told who says what; set "
            "ASSISTANT_LLM_CHAT_TEMPLATE to the one it was trained with: "
            f"{', '.join(sorted(BUILTIN_TEMPLATES))}, or the path of a Jinja template file"
        )
    return ChosenTemplate(
        BUILTIN_TEMPLATES[name], f"{name}, for the architecture {architecture!r} (it has none)"
    )


def resolve_template(setting: str) -> str:
    """Return the Jinja template a setting names.

    Args:
        setting: A built-in name (``chatml``, ``gemma``) or the path of a Jinja file.

    Raises:
        LLMModelError: the name is not built in and no such file can be read.
    """
    name = setting.strip().lower()
    if name in BUILTIN_TEMPLATES:
        return BUILTIN_TEMPLATES[name]
    path = Path(setting).expanduser()
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LLMModelError(
            f"ASSISTANT_LLM_CHAT_TEMPLATE={setting!r} is neither a built-in template "
            f"({', '.join(sorted(BUILTIN_TEMPLATES))}) nor a readable Jinja file: {exc}"
        ) from None


def turn_markers(template: str) -> list[str]:
    """The ``TURN_MARKERS`` a template writes: where a model's answer in it must stop."""
    return [marker for marker in TURN_MARKERS if marker in template]
