"""The ``ask`` client: it imports nothing heavy, finds the data directory exactly as the
settings do, and answers in process when the socket does not answer as it should (a real
socket served by a thread stands in for a misbehaving assistant)."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assistant.askclient import SOCKET_NAME, resolve_data_dir
from assistant.config import load_settings
from testing.serve_process import AT_A_TERMINAL

HEAVY = {"pydantic", "pydantic_settings", "agent", "tasks", "memory", "tools", "interfaces"}
HEAVY |= {"calendars", "common", "sqlite3", "asyncio", "httpx", "dataclasses"}


@pytest.mark.parametrize("module", ["assistant.askclient", "assistant.cli"])
def test_the_client_imports_only_the_standard_library(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import json, sys, {module}; print(json.dumps(list(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(json.loads(done.stdout))
    assert not {name for name in loaded if name.split(".")[0] in HEAVY}
    assert "assistant.config" not in loaded
    assert {name for name in loaded if name.startswith("assistant.")} <= {
        "assistant.askclient",
        "assistant.cli",
    }


# -- the data directory ------------------------------------------------------------------------

AGREED = {
    "nothing set: the default": (None, None),
    "the variable, absolute": ("/srv/assistant-data", None),
    "the variable, relative": ("my/data/", None),
    "the variable, empty": ("", None),
    "the variable, spaces kept": ("  spaced ", None),
    "the variable beats .env": ("from-env", "ASSISTANT_DATA_DIR=from-file\n"),
    ".env, plain": (None, "ASSISTANT_DATA_DIR=/var/lib/assistant\n"),
    ".env, export and spaces": (None, "  export   ASSISTANT_DATA_DIR =  rel/dir  \n"),
    ".env, single quotes": (None, "ASSISTANT_DATA_DIR='/a b/c' # where\n"),
    ".env, double quotes and an escape": (None, 'ASSISTANT_DATA_DIR="/x\\\\y\\tz"\n'),
    ".env, an inline comment": (None, "ASSISTANT_DATA_DIR=/d # the data\n"),
    ".env, a hash that is not a comment": (None, "ASSISTANT_DATA_DIR=/d#1\n"),
    ".env, empty with a comment": (None, "ASSISTANT_DATA_DIR= # none\n"),
    ".env, empty": (None, "ASSISTANT_DATA_DIR=\n"),
    ".env, lower case": (None, "assistant_data_dir=lower\n"),
    ".env, the last one wins": (None, "ASSISTANT_DATA_DIR=one\nASSISTANT_DATA_DIR=two\n"),
    ".env, a bare name unsets it": (None, "ASSISTANT_DATA_DIR=one\nASSISTANT_DATA_DIR\n"),
    ".env, cases folded in first-seen order": (
        None,
        "ASSISTANT_DATA_DIR=a\nassistant_data_dir=b\nASSISTANT_DATA_DIR=c\n",
    ),
    ".env, a byte-order mark and CRLF": (None, "\ufeffX=1\r\nASSISTANT_DATA_DIR=crlf\r\n"),
    ".env, other lines around it": (
        None,
        '# settings\n\nASSISTANT_SYSTEM_PROMPT="It\'s fine"\n=broken\nASSISTANT_DATA_DIR=/k\n'
        "ASSISTANT_LLM_MODEL='m' trailing\n",
    ),
    ".env, a malformed line of its own is skipped": (
        None,
        "ASSISTANT_DATA_DIR=/kept\nASSISTANT_DATA_DIR='/x' y\n",
    ),
}

UNSURE = {
    "a variable filled in": "ASSISTANT_DATA_DIR=${HOME}/data\n",
    "a quoted name": "'ASSISTANT_DATA_DIR'=/q\n",
    "a value over two lines": 'NOTE="one\nASSISTANT_DATA_DIR=/hidden\n"\n',
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current folder without ``.env`` and an environment without the data directory."""
    for name in list(os.environ):
        if name.lower() == "assistant_data_dir":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("variable", "dotenv"), AGREED.values(), ids=AGREED.keys())
def test_the_data_directory_is_the_settings_one(
    folder: Path, monkeypatch: pytest.MonkeyPatch, variable: str | None, dotenv: str | None
) -> None:
    if variable is not None:
        monkeypatch.setenv("ASSISTANT_DATA_DIR", variable)
    if dotenv is not None:
        (folder / ".env").write_bytes(dotenv.encode())
    assert resolve_data_dir() == load_settings().data_dir


def test_the_variable_in_lower_case_is_read_too(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("assistant_data_dir", "lowered")
    assert resolve_data_dir() == load_settings().data_dir == Path("lowered")


@pytest.mark.parametrize("dotenv", UNSURE.values(), ids=UNSURE.keys())
def test_a_dotenv_only_its_own_parser_reads_leaves_it_to_the_settings(
    folder: Path, dotenv: str
) -> None:
    (folder / ".env").write_text(dotenv)
    assert resolve_data_dir() is None


# -- answering in process when the socket does not answer ------------------------------------


def run_ask(data_dir: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assistant.cli", "ask", *args],
        capture_output=True,
        text=True,
        env=ask_env(data_dir),
        cwd=data_dir.parent,
        timeout=timeout,
        check=False,
    )


def ask_env(data_dir: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(data_dir.parent),
        "ASSISTANT_DATA_DIR": str(data_dir),
        "ASSISTANT_TIMEZONE": "UTC",
        "ASSISTANT_LOG_LEVEL": "DEBUG",
    }


def in_process(done: subprocess.CompletedProcess[str], why: str) -> None:
    """Assert that the answer was made in the command's own process, for ``why``."""
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("You have no scheduled tasks.")
    assert "assistant ask answers in this process" in done.stderr
    assert why in done.stderr


def test_no_socket_is_answered_in_process(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    in_process(run_ask(data_dir, "/tasks"), f"no socket at {data_dir / SOCKET_NAME}")


def test_a_socket_nobody_listens_on_is_answered_in_process(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(data_dir / SOCKET_NAME))
    stale.close()  # the file stays, as after a process that was killed
    in_process(run_ask(data_dir, "/tasks"), "Connection refused")


def test_text_or_a_folder_that_is_no_utf8_is_answered_in_process(tmp_path: Path) -> None:
    """Bytes in another encoding reach Python as lone surrogates, which JSON in UTF-8 cannot
    carry: the command answers as it always has, in process, instead of failing."""
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(data_dir / SOCKET_NAME))
    stale.close()
    said = run_ask(data_dir, os.fsdecode(b"remind me in 5 minutes to call caf\xe9"))
    assert said.returncode == 0, said.stderr
    assert said.stdout.startswith("I'll remind you")
    assert "is not UTF-8 text" in said.stderr
    folder = tmp_path / os.fsdecode(b"caf\xe9")
    folder.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "ask", "/tasks"],
        capture_output=True, text=True, env=ask_env(data_dir), cwd=folder, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "reminder: call caf\ufffd" in done.stdout  # the reminder the first ask made
    assert "is not UTF-8 text" in done.stderr


Script = Callable[[socket.socket], object]


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[Callable[[Script], Path]]:
    """A socket in a data directory served by ``script`` in a thread; returns the data dir."""
    threads: list[threading.Thread] = []
    listeners: list[socket.socket] = []

    def start(script: Script) -> Path:
        data_dir = tmp_path / "data"
        data_dir.mkdir(mode=0o700)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(data_dir / SOCKET_NAME))
        listener.listen()
        listeners.append(listener)

        def serve() -> None:
            conn, _ = listener.accept()
            with conn:
                script(conn)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        threads.append(thread)
        return data_dir

    yield start
    for listener in listeners:
        listener.close()
    for thread in threads:
        thread.join(timeout=10)


def read_request(conn: socket.socket) -> dict[str, object]:
    request: dict[str, object] = json.loads(conn.makefile("rb").readline())
    return request


def test_another_protocol_version_is_answered_in_process(
    fake: Callable[[Script], Path],
) -> None:
    data_dir = fake(lambda conn: conn.sendall(b'{"version": 2, "pid": 1}\n'))
    in_process(run_ask(data_dir, "/tasks"), "'version': 2")


def test_a_refusal_is_answered_in_process(fake: Callable[[Script], Path]) -> None:
    data_dir = fake(lambda conn: conn.sendall(b'{"version": 1, "error": "refused: uid 7"}\n'))
    in_process(run_ask(data_dir, "/tasks"), "refused: uid 7")


def test_a_request_the_server_cannot_use_is_answered_in_process(
    fake: Callable[[Script], Path],
) -> None:
    def script(conn: socket.socket) -> None:
        conn.sendall(b'{"version": 1, "pid": 1}\n')
        read_request(conn)
        conn.sendall(b'{"version": 1, "error": "the request is too long"}\n')

    in_process(run_ask(fake(script), "/tasks"), "the request is too long")


def test_the_request_says_the_text_the_format_and_the_folder(
    fake: Callable[[Script], Path],
) -> None:
    seen: list[dict[str, object]] = []

    def script(conn: socket.socket) -> None:
        conn.sendall(b'{"version": 1, "pid": 1}\n')
        seen.append(read_request(conn))
        answer = {"version": 1, "stdout": "out\n", "stderr": "err\n", "status": 3}
        conn.sendall(json.dumps(answer).encode() + b"\n")

    data_dir = fake(script)
    done = run_ask(data_dir, "--json", "hello", "there")
    assert (done.stdout, done.stderr, done.returncode) == ("out\n", "err\n", 3)
    assert seen == [
        {"version": 1, "text": "hello there", "json": True, "cwd": str(data_dir.parent)}
    ]


def test_a_server_that_leaves_mid_turn_is_an_error_not_a_second_turn(
    fake: Callable[[Script], Path],
) -> None:
    def script(conn: socket.socket) -> None:
        conn.sendall(b'{"version": 1, "pid": 4242}\n')
        read_request(conn)  # then closes: the turn may have run

    done = run_ask(fake(script), "remind me in 5 minutes to stretch")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "(pid 4242) stopped before it answered" in done.stderr
    assert "check with `assistant tasks`" in done.stderr


def test_ctrl_c_while_waiting_for_the_answer_exits_130(fake: Callable[[Script], Path]) -> None:
    asked = threading.Event()

    def script(conn: socket.socket) -> None:
        conn.sendall(b'{"version": 1, "pid": 1}\n')
        read_request(conn)
        asked.set()
        conn.recv(1)  # until the client is gone

    data_dir = fake(script)
    client = subprocess.Popen(
        [sys.executable, "-c", AT_A_TERMINAL, "-m", "assistant.cli", "ask", "/tasks"],
        env=ask_env(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert asked.wait(timeout=30)
    client.send_signal(signal.SIGINT)
    stdout, _ = client.communicate(timeout=30)
    assert client.returncode == 130
    assert stdout == ""


def test_a_server_that_never_says_hello_is_answered_in_process(
    fake: Callable[[Script], Path],
) -> None:
    began = time.monotonic()
    data_dir = fake(lambda conn: conn.recv(1))
    in_process(run_ask(data_dir, "/tasks"), "timed out")
    assert time.monotonic() - began < 30
