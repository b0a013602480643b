"""A running assistant answers ``assistant ask``: the real ``assistant serve`` in a process
of its own, ``assistant ask`` as another, the socket in a temporary data directory.

The server runs in Asia/Tokyo and the asking command in UTC, so an answer that names Tokyo
was made by the server (``--local`` makes the command answer itself, in UTC).
"""

import asyncio
import json
import logging
import os
import pwd
import re
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent.llm import ChatMessage, LLMResponse, ScriptedBackend
from assistant.app import open_app
from assistant.askclient import SOCKET_NAME, Answer, Unanswered, ask_running
from assistant.asking import answer_ask
from assistant.askserver import AskServer, answering_ask
from assistant.config import load_settings
from testing.serve_process import start_until_ready
from tools import ToolDefinition

SERVER_ZONE = "Asia/Tokyo"


@dataclass
class Served:
    """A running ``assistant serve`` and where it keeps its data and log."""

    process: subprocess.Popen[str]
    data_dir: Path
    log: Path

    @property
    def socket(self) -> Path:
        return self.data_dir / SOCKET_NAME

    def log_text(self) -> str:
        return self.log.read_text()

    def answered(self) -> int:
        """How many asks the server's log says it answered."""
        return self.log_text().count("answered `assistant ask`")

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=60)
        finally:
            if self.process.stdout is not None:
                self.process.stdout.close()


def start_serve(data_dir: Path, log: Path) -> Served:
    """Start ``assistant serve`` on ``data_dir``; return once it printed ``ready``."""
    env = {
        **base_env(data_dir),
        "ASSISTANT_TIMEZONE": SERVER_ZONE,
        "ASSISTANT_LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    }
    with log.open("w") as errors:
        command = [sys.executable, "-m", "assistant.cli", "serve"]
        # The server's umask at 0: the socket is 0600 all the same.
        process = start_until_ready(command, env=env, cwd=data_dir.parent, stderr=errors, umask=0)
    return Served(process, data_dir, log)


def base_env(data_dir: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(data_dir.parent),
        "ASSISTANT_DATA_DIR": str(data_dir),
    }


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("ask")
    running = start_serve(folder / "data", folder / "serve.log")
    yield running
    running.stop()


def ask(
    served: Served,
    *args: str,
    zone: str = "UTC",
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assistant.cli", "ask", *args],
        capture_output=True,
        text=True,
        env={**base_env(served.data_dir), "ASSISTANT_TIMEZONE": zone, **(env or {})},
        cwd=cwd or served.data_dir.parent,
        timeout=60,
        check=False,
    )


def test_the_running_assistant_answers(served: Served) -> None:
    before = served.answered()
    done = ask(served, "what time is it?")
    assert done.returncode == 0, done.stderr
    assert f"({SERVER_ZONE})" in done.stdout
    assert done.stderr == ""
    assert served.answered() == before + 1
    local = ask(served, "--local", "what time is it?")
    assert "(UTC)" in local.stdout
    by_variable = ask(served, "what time is it?", env={"ASSISTANT_ASK_LOCAL": "1"})
    assert "(UTC)" in by_variable.stdout
    assert served.answered() == before + 1


@pytest.mark.parametrize(
    "said",
    [
        ["/tasks"],
        ["--json", "/tasks"],
        ["/help"],
        ["/later 1 10m"],
        ["--json", "at 1am daily POST http://home.lan/lights/off"],
        ["write a haiku about the sea"],
    ],
    ids=["slash", "slash as JSON", "help", "chat only", "an approval", "nothing to do"],
)
def test_the_answer_is_the_in_process_one(served: Served, said: list[str]) -> None:
    through = ask(served, *said, zone=SERVER_ZONE)
    local = ask(served, "--local", *said, zone=SERVER_ZONE)
    if "--json" in said:
        # The note says how to decide a request where the answer was made (next test).
        assert without_note(through.stdout) == without_note(local.stdout)
    else:
        assert through.stdout == local.stdout
    assert (through.stderr, through.returncode) == (local.stderr, local.returncode)


def without_note(answer: str) -> dict[str, Any]:
    """``ask --json``'s answer without its note, the ids of its approval requests as ``ID``
    (each turn asks for its own)."""
    for request in json.loads(answer)["approvals"]:
        answer = answer.replace(request["id"], "ID")
    read: dict[str, Any] = json.loads(answer)
    del read["note"]
    return read


def test_the_notes_say_what_holds_where_the_answer_was_made(served: Served) -> None:
    """``serve`` fires the reminder itself and holds the scheduler, so ``assistant chat``,
    where a request is decided, starts only once it stops."""
    made = ask(served, "remind me in 2 hours to stretch")
    assert made.stdout.startswith("I'll remind you") and "Scheduled tasks fire" not in made.stdout
    local = ask(served, "--local", "remind me in 2 hours to water the plants")
    assert "(Scheduled tasks fire while `assistant chat`" in local.stdout
    asked = ask(served, "at 1am daily POST http://home.lan/lights/off")
    [request] = re.findall(r"\(To decide request (\w+),", asked.stdout)
    assert (
        f"(To decide request {request}, stop `assistant serve` (one scheduler runs on a data "
        f"directory), then run `assistant chat` and type /approve {request} or /deny {request}.)"
    ) in asked.stdout


def test_a_slash_command_changes_what_the_in_process_ask_sees(served: Served) -> None:
    set_ = ask(served, "/quiet 22:00-07:00", zone=SERVER_ZONE)
    assert set_.stdout.startswith(f"Quiet hours: from 22:00 to 07:00 ({SERVER_ZONE}).")
    shown = ask(served, "--local", "--json", "/quiet", zone=SERVER_ZONE)
    assert json.loads(shown.stdout)["reply"].startswith("Your quiet hours: from 22:00 to 07:00")
    assert ask(served, "/quiet off").returncode == 0


def test_the_socket_is_this_users_alone(served: Served) -> None:
    made = served.socket.lstat()
    assert stat.S_ISSOCK(made.st_mode)
    assert stat.S_IMODE(made.st_mode) == 0o600
    assert made.st_uid == os.getuid()


def talk(served: Served, *lines: bytes) -> list[dict[str, object]]:
    """Connect, send ``lines`` after the hello, and read every line until the server closes."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(str(served.socket))
        reader = conn.makefile("rb")
        heard = [json.loads(reader.readline())]
        for line in lines:
            conn.sendall(line)
        heard.extend(json.loads(line) for line in reader)
    return heard


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (b"not json\n", "not a line of JSON"),
        (b"[1, 2]\n", "not a JSON object"),
        (b'{"version": 99, "text": "hi"}\n', "protocol version 99"),
        (b'{"version": 1, "text": 5}\n', '"text" must be a string'),
        (b'{"version": 1, "text": "hi", "json": "yes"}\n', '"json" must be true or false'),
        (b'{"version": 1, "text": "hi", "cwd": 1}\n', '"cwd" must be a folder'),
    ],
)
def test_a_malformed_request_gets_an_error_reply(served: Served, line: bytes, said: str) -> None:
    hello, reply = talk(served, line)
    assert hello == {"version": 1, "pid": served.process.pid}
    assert reply["version"] == 1
    assert said in str(reply["error"])
    assert ask(served, "/tasks").returncode == 0  # and the server goes on


def test_a_calendar_command_from_another_folder_is_left_to_the_client(
    served: Served, tmp_path: Path
) -> None:
    request = {"version": 1, "text": "/calendar import plans.ics", "cwd": str(tmp_path)}
    _, reply = talk(served, json.dumps(request).encode() + b"\n")
    assert reply == {"version": 1, "local": True}
    (tmp_path / "plans.ics").write_text("not a calendar")
    before = served.answered()
    done = ask(served, "/calendar import plans.ics", cwd=tmp_path)
    assert done.stdout.startswith("This is not an iCalendar file")  # read from tmp_path
    assert served.answered() == before


def test_clients_that_leave_do_not_stop_the_server(served: Served) -> None:
    request = json.dumps({"version": 1, "text": "remind me in 2 hours to leave early"})
    for _ in range(3):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(served.socket))
            conn.recv(100)  # the hello
            conn.sendall(request.encode() + b"\n")  # and gone before the answer
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(served.socket))  # and gone before the hello
    done = ask(served, "what time is it?")
    assert done.returncode == 0
    assert f"({SERVER_ZONE})" in done.stdout
    assert "Traceback" not in served.log_text()


def test_concurrent_asks_are_all_answered(served: Served) -> None:
    env = {**base_env(served.data_dir), "ASSISTANT_TIMEZONE": "UTC"}
    said = ["what time is it?", "/tasks", "what time is it?", "/help", "what time is it?"]
    asking = [
        subprocess.Popen(
            [sys.executable, "-m", "assistant.cli", "ask", "--json", text],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for text in said
    ]
    replies = [json.loads(p.communicate(timeout=60)[0])["reply"] for p in asking]
    assert all(p.returncode == 0 for p in asking)
    times = [reply for text, reply in zip(said, replies, strict=True) if text.startswith("what")]
    assert all(f"({SERVER_ZONE})" in reply for reply in times)
    log = served.log_text()
    assert all(f"answered `assistant ask` for pid {p.pid} " in log for p in asking)


def test_a_stale_socket_is_replaced_and_the_socket_goes_with_the_server(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(data_dir / SOCKET_NAME))
    stale.close()  # left behind, as by a process that was killed
    running = start_serve(data_dir, tmp_path / "serve.log")
    try:
        done = ask(running, "what time is it?")
        assert f"({SERVER_ZONE})" in done.stdout
    finally:
        assert running.stop() == 0
    assert not running.socket.exists()
    began = time.monotonic()
    again = ask(running, "what time is it?")  # answered in process now
    assert "(UTC)" in again.stdout
    assert time.monotonic() - began < 60


def test_a_second_assistant_leaves_the_socket_to_the_first(served: Served, tmp_path: Path) -> None:
    env = {**base_env(served.data_dir), "ASSISTANT_LOG_LEVEL": "INFO"}
    second = subprocess.Popen(
        [sys.executable, "-m", "assistant.cli", "mcp"],  # it runs no scheduler: it may start
        env=env,
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert second.stdin is not None and second.stderr is not None
    said = ""
    while "already answers `assistant ask`" not in said:
        ready, _, _ = select.select([second.stderr], [], [], 60)
        line = second.stderr.readline() if ready else ""
        assert line, f"the second assistant said: {said}"
        said += line
    second.stdin.close()
    assert second.wait(timeout=60) == 0
    second.stderr.close()
    assert f"(pid {served.process.pid})" in said
    done = ask(served, "what time is it?")
    assert f"({SERVER_ZONE})" in done.stdout  # the first one answers still


ATTACK = """
import json, socket, sys
found = {}
try:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(30)
    conn.connect(sys.argv[1])
    found["hello"] = json.loads(conn.makefile("rb").readline())
except OSError as error:
    found["refused"] = type(error).__name__
print(json.dumps(found))
"""


def attack(path: Path) -> dict[str, Any]:
    """What another account of the machine (``nobody``) gets when it connects to ``path``."""
    python = next(p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if Path(p).exists())
    nobody = pwd.getpwnam("nobody")
    done = subprocess.run(
        [python, "-c", ATTACK, str(path)],
        capture_output=True,
        text=True,
        cwd="/",
        env={"PATH": "/usr/bin:/bin"},
        user=nobody.pw_uid,
        group=nobody.pw_gid,
        extra_groups=[],
        timeout=60,
        check=True,
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


@pytest.mark.skipif(os.geteuid() != 0, reason="making another account's process needs root")
def test_another_account_is_kept_out_and_refused_by_name() -> None:
    folder = Path(tempfile.mkdtemp(prefix="ask-others-"))  # not under pytest's 0700 folder
    try:
        folder.chmod(0o711)
        running = start_serve(folder / "data", folder / "serve.log")
        try:
            assert attack(running.socket) == {"refused": "PermissionError"}  # the folder: 0700
            # Loosened by hand, the folder and the socket let it connect: it is told no.
            running.data_dir.chmod(0o711)
            running.socket.chmod(0o666)
            [said] = attack(running.socket).values()
            assert said["version"] == 1
            assert said["error"].startswith("refused: this assistant answers only its own user")
            assert f"not uid {pwd.getpwnam('nobody').pw_uid}" in said["error"]
            assert (
                "`assistant ask` on " in running.log_text()
                and "refused: this assistant" in running.log_text()
            )
            assert f"({SERVER_ZONE})" in ask(running, "what time is it?").stdout
        finally:
            running.stop()
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("why", ["a path too long for a socket", "a file in the socket's place"])
def test_a_front_end_that_cannot_listen_runs_on_and_ask_answers_itself(
    tmp_path: Path, why: str
) -> None:
    data_dir = tmp_path / "data"
    if why == "a path too long for a socket":
        data_dir = tmp_path / ("d" * 100) / "data"
        data_dir.parent.mkdir()
        said = "AF_UNIX path too long"
    else:
        data_dir.mkdir(mode=0o700)
        (data_dir / SOCKET_NAME).write_text("mine")
        said = "is not a socket; move it away"
    running = start_serve(data_dir, tmp_path / "serve.log")
    try:
        assert "`assistant ask` will not be answered by this assistant" in running.log_text()
        assert said in running.log_text()
        done = ask(running, "what time is it?")
        assert done.returncode == 0
        assert "(UTC)" in done.stdout  # answered by the command itself
    finally:
        assert running.stop() == 0
    if why == "a file in the socket's place":
        assert (data_dir / SOCKET_NAME).read_text() == "mine"


async def test_a_turn_that_fails_in_the_server_is_one_error_line_and_status_1(
    tmp_path: Path,
) -> None:
    settings = load_settings(data_dir=tmp_path / "data", timezone="UTC")
    async with (
        open_app(settings) as app,
        answering_ask(app, data_dir=settings.data_dir, secrets=settings.secret_values()),
    ):
        await app.memory.close()  # the database is gone from under the running assistant
        answered = await asyncio.to_thread(
            ask_running, "what time is it?", as_json=False, data_dir=settings.data_dir
        )
        assert answered == await answer_ask(app, "what time is it?", as_json=False, secrets=())
    assert isinstance(answered, Answer)
    assert answered.stdout == ""
    assert answered.status == 1
    [line] = answered.stderr.splitlines()
    assert line.startswith("error: ")


class HeldModel(ScriptedBackend):
    """A model that answers only once ``release`` is set (a slow turn)."""

    def __init__(self) -> None:
        super().__init__(lambda messages: "Once upon a time.")
        self.arrived = asyncio.Event()
        self.release = asyncio.Event()

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        self.arrived.set()
        await self.release.wait()
        return await super().complete(messages, tools=tools)


async def test_stopping_mid_turn_closes_the_connection_without_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    model = HeldModel()
    settings = load_settings(data_dir=tmp_path / "data", timezone="UTC")
    async with open_app(settings, backend=model) as app:
        server = AskServer(app=app, data_dir=settings.data_dir)
        await server.start()
        asking = asyncio.create_task(
            asyncio.to_thread(
                ask_running,
                "tell me a story about a cat",
                as_json=False,
                data_dir=settings.data_dir,
            )
        )
        async with asyncio.timeout(30):
            await model.arrived.wait()
        await server.stop()  # as SIGTERM does, the turn still waiting for the model
        with pytest.raises(Unanswered, match="stopped before it answered"):
            await asking
    assert "stopped while answering `assistant ask`" in caplog.text
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert not server.path.exists()
