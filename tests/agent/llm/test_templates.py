"""Which chat template a GGUF file is written with: the setting, its own, or its family's."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from agent.llm import BUILTIN_TEMPLATES, LLMModelError, LocalBackend, choose_template
from tests.agent.llm.real_models import gemma_path, smollm2_path

TEMPLATE_LOG = "agent.llm.gguf"


def never_one_token(text: str) -> bool:
    return False


def only(marker: str) -> Callable[[str], bool]:
    return lambda text: text == marker


async def loaded_log(backend: LocalBackend, caplog: pytest.LogCaptureFixture) -> list[str]:
    with caplog.at_level(logging.INFO, logger=TEMPLATE_LOG):
        await backend.load()
    await backend.aclose()
    return [r.getMessage() for r in caplog.records if r.name == TEMPLATE_LOG]


async def test_a_file_with_its_own_template_is_written_with_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    said = await loaded_log(LocalBackend(model_path=smollm2_path()), caplog)

    assert said == [
        "chat template of SmolLM2-135M-Instruct.Q4_1.gguf: the file's own (tokenizer.chat_template)"
    ]


async def test_a_file_without_one_gets_its_architecture_s_and_says_which(
    caplog: pytest.LogCaptureFixture,
) -> None:
    said = await loaded_log(LocalBackend(model_path=gemma_path()), caplog)

    assert said == [
        "chat template of gemma-3-270m-q4_k_m.gguf: gemma, for the architecture 'gemma3' "
        "(it has none)"
    ]


async def test_the_setting_overrides_the_file_s_own(caplog: pytest.LogCaptureFixture) -> None:
    said = await loaded_log(LocalBackend(model_path=smollm2_path(), chat_template="gemma"), caplog)

    assert said == [
        "chat template of SmolLM2-135M-Instruct.Q4_1.gguf: gemma, from ASSISTANT_LLM_CHAT_TEMPLATE"
    ]


@pytest.mark.parametrize(
    ("architecture", "marker", "name"),
    [
        ("qwen2", None, "chatml"),
        ("qwen3", None, "chatml"),
        ("phi3", None, "phi3"),
        ("gemma2", None, "gemma"),
        ("smollm3", None, "chatml"),
        ("llama", "<|start_header_id|>", "llama3"),
        ("llama", "<|im_start|>", "chatml"),
        ("llama", None, "llama2"),
        ("granite", "<|im_start|>", "chatml"),
    ],
)
def test_each_family_has_its_template(architecture: str, marker: str | None, name: str) -> None:
    one_token = only(marker) if marker else never_one_token
    chosen = choose_template({"general.architecture": architecture}, one_token)

    assert chosen.template == BUILTIN_TEMPLATES[name]
    assert chosen.source == f"{name}, for the architecture {architecture!r} (it has none)"


def test_an_unknown_family_without_a_template_names_the_setting() -> None:
    with pytest.raises(LLMModelError, match=r"'mamba'.*set ASSISTANT_LLM_CHAT_TEMPLATE"):
        choose_template({"general.architecture": "mamba"}, never_one_token)


def test_a_setting_that_names_no_template_says_what_it_accepts() -> None:
    with pytest.raises(LLMModelError, match=r"neither a built-in template \(chatml, gemma, llama2"):
        choose_template({}, never_one_token, "vicuna")
