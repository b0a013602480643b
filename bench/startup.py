"""Start-up of the command line: ``assistant ask "what time is it?"`` and ``assistant chat``.

Run with ``.venv/bin/python -m bench.startup`` (``--rounds N``, default 7; ``--asks N``,
default 30). Each round starts fresh processes, one after the other: a bare ``python -c
pass`` (the floor), ``assistant ask "what time is it?"`` on the offline planner until it
exits, with no assistant running (so it builds the application in its own process), and
``assistant chat`` in a pseudo-terminal until its ``you>`` prompt shows (then it is killed);
then the same ``ask`` and ``chat`` with a local model configured (SmolLM2-135M, when
``./scripts/setup dev`` installed it): the planner answers the question, so ``ask`` never
loads the model, and ``chat`` loads it in the background. Then ``assistant serve`` is started
on the same data directory and the same ``ask`` is timed ``--asks`` times, answered by it
through its socket, each beside a floor of its own. Prints the wall times as median
[min-max]. The data directory is a fresh temporary one, created by the first run.
``python -X importtime -m assistant.cli ask "what time is it?"`` shows where the in-process
time goes.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from testing.models import SMOLLM2, ModelMissingError, model_path
from testing.serve_process import REPO_ROOT, start_until_ready

PROMPT = b"you>"
SERVER_ZONE = "Asia/Tokyo"


def timed(command: Sequence[str], env: dict[str, str]) -> float:
    """Run ``command`` to its end; return its wall time in seconds."""
    began = time.perf_counter()
    subprocess.run(command, cwd=REPO_ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - began


def to_prompt(command: Sequence[str], env: dict[str, str], *, within: float = 30.0) -> float:
    """Start ``command`` on a pseudo-terminal; return the seconds until it shows ``you>``.

    Raises:
        RuntimeError: when no prompt showed within ``within`` seconds.
    """
    controller, terminal = pty.openpty()
    began = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=REPO_ROOT, env=env, stdin=terminal, stdout=terminal, stderr=terminal
    )
    os.close(terminal)
    seen = b""
    try:
        while time.perf_counter() - began < within:
            ready, _, _ = select.select([controller], [], [], 0.2)
            if not ready:
                continue
            try:
                seen += os.read(controller, 65536)
            except OSError:  # the process ended
                break
            if PROMPT in seen:
                return time.perf_counter() - began
        raise RuntimeError(f"no {PROMPT!r} prompt within {within:g} s; it printed {seen[-300:]!r}")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        os.close(controller)


@contextlib.contextmanager
def serving(env: dict[str, str], *, within: float = 60.0) -> Iterator[None]:
    """Run ``assistant serve`` while the block runs (it answers ``ask`` on its socket).

    Raises:
        ServeError: when it did not print ``ready`` within ``within`` seconds.
    """
    command = [sys.executable, "-m", "assistant.cli", "serve"]
    proc = start_until_ready(
        command, env=env, cwd=REPO_ROOT, stderr=subprocess.DEVNULL, within=within
    )
    assert proc.stdout is not None
    try:
        yield
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        proc.stdout.close()


def shown(seconds: list[float]) -> str:
    """Median [min-max] in milliseconds."""
    ms = [s * 1000 for s in seconds]
    return f"{statistics.median(ms):.0f} [{min(ms):.0f}-{max(ms):.0f}] ms"


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the start-up times."""
    parser = argparse.ArgumentParser(prog="bench.startup", description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--asks", type=int, default=30)
    args = parser.parse_args(argv)
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="assistant-startup-") as tmp:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_LLM_")},
            "ASSISTANT_DATA_DIR": str(Path(tmp) / "data"),
            "ASSISTANT_TIMEZONE": "UTC",
            "TERM": "xterm",
        }
        try:
            with_model = {**env, "ASSISTANT_LLM_MODEL_PATH": str(model_path(SMOLLM2.name))}
        except ModelMissingError as exc:
            print(f"(no rows with a model: {exc})", file=sys.stderr)
            with_model = None
        timed([python, "-m", "assistant.cli", "tasks"], env)  # creates the database
        ask_command = [python, "-m", "assistant.cli", "ask", "what time is it?"]
        chat_command = [python, "-m", "assistant.cli", "chat"]
        rows: dict[str, list[float]] = {
            "python -c pass (the floor)": [],
            'assistant ask "what time is it?" (to exit)': [],
            "assistant chat (to its prompt)": [],
        }
        if with_model is not None:
            rows["... ask, a local model configured"] = []
            rows["... chat, a local model configured"] = []
        for _ in range(args.rounds):
            rows["python -c pass (the floor)"].append(timed([python, "-c", "pass"], env))
            rows['assistant ask "what time is it?" (to exit)'].append(timed(ask_command, env))
            rows["assistant chat (to its prompt)"].append(to_prompt(chat_command, env))
            if with_model is not None:
                rows["... ask, a local model configured"].append(timed(ask_command, with_model))
                chat = to_prompt(chat_command, with_model)
                rows["... chat, a local model configured"].append(chat)
        floor, through = "python -c pass (the floor, beside serve)", "... ask, answered by serve"
        rows[floor], rows[through] = [], []
        # The server's own zone shows in its answers: proof that it, not the command, answered.
        with serving({**env, "ASSISTANT_TIMEZONE": SERVER_ZONE}):
            answered = subprocess.run(
                ask_command, cwd=REPO_ROOT, env=env, check=True, capture_output=True, text=True
            )
            if f"({SERVER_ZONE})" not in answered.stdout:
                raise RuntimeError(f"serve did not answer ask: {answered.stdout!r}")
            for _ in range(args.asks):
                rows[floor].append(timed([python, "-c", "pass"], env))
                rows[through].append(timed(ask_command, env))
    for label, seconds in rows.items():
        print(f"{label:<44}{shown(seconds)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
