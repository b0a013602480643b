"""Chat templates for GGUF files that carry none (``ASSISTANT_LLM_CHAT_TEMPLATE``).

A chat template turns a conversation into the one string a model was trained to continue. Most
GGUF files carry their own (``tokenizer.chat_template``); for those that do not, the setting
names one of these, or a file holding a Jinja template in the Hugging Face format.
"""

from __future__ import annotations

from pathlib import Path

from assistant.llm.errors import LLMModelError

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

BUILTIN_TEMPLATES = {"chatml": CHATML, "gemma": GEMMA}
"""The templates ``ASSISTANT_LLM_CHAT_TEMPLATE`` may name."""

END_OF_TURN = {"chatml": "<|im_end|>", "gemma": "<end_of_turn>"}
"""What ends an assistant turn in each built-in template (besides the model's EOS token)."""


def resolve_template(setting: str) -> tuple[str, str | None]:
    """Return the Jinja template a setting names and the text that ends a turn in it.

    Args:
        setting: A built-in name (``chatml``, ``gemma``) or the path of a Jinja file.

    Raises:
        LLMModelError: the name is not built in and no such file can be read.
    """
    name = setting.strip().lower()
    if name in BUILTIN_TEMPLATES:
        return BUILTIN_TEMPLATES[name], END_OF_TURN[name]
    path = Path(setting).expanduser()
    try:
        return path.read_text(encoding="utf-8"), None
    except OSError as exc:
        raise LLMModelError(
            f"ASSISTANT_LLM_CHAT_TEMPLATE={setting!r} is neither a built-in template "
            f"({', '.join(sorted(BUILTIN_TEMPLATES))}) nor a readable Jinja file: {exc}"
        ) from None
