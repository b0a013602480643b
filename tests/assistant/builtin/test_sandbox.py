"""Tests for the execute_code sandbox: real bubblewrap sandboxes, real processes, real limits.

Nothing here waits by sleeping. The code under test reports progress on its standard output,
which ``on_stdout`` hands to the test as it arrives, and ``CodeSandbox.run`` returns only after
the last process of the run is gone, so what still runs afterwards is read from /proc once.
Processes are recognised by a token the test puts on their command line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import socket
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from assistant.builtin import (
    CodeRun,
    CodeSandbox,
    SandboxLimits,
    SandboxUnavailableError,
)
from tools import ToolError

THIS_FILE = Path(__file__).resolve()
LIMITS = SandboxLimits(
    memory_bytes=256 * 1024**2, file_bytes=1024**2, disk_bytes=4 * 1024**2, processes=8
)


@pytest.fixture(scope="module")
def shared_sandbox() -> CodeSandbox:
    return CodeSandbox(limits=LIMITS)


@pytest.fixture
async def sandbox(shared_sandbox: CodeSandbox) -> CodeSandbox:
    """The shared sandbox. Where none works the tests fail with the reason (what to install or
    enable): a check that skips the sandbox's tests would pass without checking it."""
    try:
        await shared_sandbox.check()
    except SandboxUnavailableError as exc:
        pytest.fail(str(exc))
    return shared_sandbox


def processes_carrying(token: str) -> list[int]:
    """Return the pids of the host's processes that have ``token`` as a command-line argument."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if token.encode() in arguments:
            found.append(int(entry.name))
    return found


@pytest.fixture
def token() -> Iterator[str]:
    """A fresh token; whatever still carries it at the end is killed, so no failure leaks."""
    value = f"sandbox-test-{secrets.token_hex(6)}"
    yield value
    for pid in processes_carrying(value):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def survivor(token: str, payload: str = "import time\ntime.sleep(1000)") -> str:
    """Code that plants a fully detached process running ``payload``, then says "planted".

    The process forks, calls setsid(), forks again and execve()s a new interpreter with an
    empty environment and ``token`` among its arguments: no process group, session or
    environment marker ties it to the run any more. It reports through a pipe once it runs.
    """
    return f"""\
import os, sys
ready, tell = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.close(ready)
        os.set_inheritable(tell, True)
        start = f"import os; os.write({{tell}}, b'!'); os.close({{tell}})\\n"
        os.execve(sys.executable, [sys.executable, "-c", start + {payload!r}, {token!r}], {{}})
    os._exit(0)
os.close(tell)
print("planted" if os.read(ready, 1) == b"!" else "not planted", flush=True)
"""


class Progress:
    """Collects a run's standard output as it arrives and tells when a word has appeared."""

    def __init__(self) -> None:
        self._seen = bytearray()
        self._waiting: dict[bytes, asyncio.Event] = {}

    def __call__(self, chunk: bytes) -> None:
        self._seen += chunk
        for word, event in self._waiting.items():
            if word in self._seen:
                event.set()

    async def reached(self, word: str, run: asyncio.Task[CodeRun]) -> None:
        """Wait until ``word`` was printed; fail if the run ended without printing it."""
        event = self._waiting.setdefault(word.encode(), asyncio.Event())
        self(b"")
        said = asyncio.ensure_future(event.wait())
        await asyncio.wait({said, run}, return_when=asyncio.FIRST_COMPLETED)
        if not said.done():
            said.cancel()
            pytest.fail(f"the run ended without printing {word!r}: {run.result().render()}")


@pytest.fixture
async def cancel_later() -> AsyncIterator[Callable[[asyncio.Task[CodeRun]], None]]:
    """Register runs that the test leaves running; they are cancelled and awaited at the end."""
    runs: list[asyncio.Task[CodeRun]] = []
    yield runs.append
    for run in runs:
        run.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await run


# Ending a run ends every process it started.


@pytest.mark.parametrize(
    ("then", "timed_out"),
    [("", False), ("import time\ntime.sleep(60)\n", True)],
    ids=["code exits", "timeout"],
)
async def test_a_detached_process_does_not_survive_its_run(
    sandbox: CodeSandbox, token: str, then: str, timed_out: bool
) -> None:
    run = await sandbox.run(survivor(token) + then, seconds=2)
    assert run.stdout == "planted\n"
    assert run.timed_out is timed_out
    assert processes_carrying(token) == []


async def test_a_cancelled_run_leaves_no_process_behind(sandbox: CodeSandbox, token: str) -> None:
    progress = Progress()
    code = survivor(token) + "import time\ntime.sleep(60)\n"
    run = asyncio.create_task(sandbox.run(code, seconds=60, on_stdout=progress))
    await progress.reached("planted", run)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert processes_carrying(token) == []


async def test_a_fork_bomb_is_held_by_the_process_limit_and_ends_with_its_run(
    sandbox: CodeSandbox, token: str
) -> None:
    # A linear probe first: the run may start exactly LIMITS.processes more processes.
    probe = (
        "import os, time\n"
        "made = 0\n"
        "for _ in range(100):\n"
        "    try:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(30)\n"
        "            os._exit(0)\n"
        "    except OSError:\n"
        "        break\n"
        "    made += 1\n"
        "print(made)\n"
    )
    run = await sandbox.run(probe, seconds=5)
    assert run.stdout == f"{LIMITS.processes}\n"
    # The bomb carries the token on its command line, and so does every copy of it.
    bomb = (
        "import os, sys\n"
        f"if sys.argv[1:] != [{token!r}]:\n"
        f"    os.execv(sys.executable, [sys.executable, '-I', __file__, {token!r}])\n"
        "while True:\n"
        "    os.fork()\n"
    )
    run = await sandbox.run(bomb, seconds=10)
    # The first process meets the limit too, and its exit ends the whole run.
    assert (run.timed_out, run.exit_code) == (False, 1)
    assert "BlockingIOError: [Errno 11] Resource temporarily unavailable" in run.stderr
    assert processes_carrying(token) == []


# Runs cannot reach each other, the assistant's files or the host.


async def test_a_survivor_cannot_rewrite_later_runs(sandbox: CodeSandbox, token: str) -> None:
    rewrite_every_main_py = (
        "import os, time\n"
        "while True:\n"
        "    for root, _, files in os.walk('/tmp'):\n"
        "        if 'main.py' in files:\n"
        "            try:\n"
        "                with open(os.path.join(root, 'main.py'), 'w') as f:\n"
        "                    f.write('print(\"hijacked\")')\n"
        "            except OSError:\n"
        "                pass\n"
        "    time.sleep(0.001)\n"
    )
    planted = await sandbox.run(survivor(token, rewrite_every_main_py), seconds=5)
    assert planted.stdout == "planted\n"
    outputs = [(await sandbox.run(f"print({n})", seconds=10)).stdout for n in range(5)]
    assert outputs == [f"{n}\n" for n in range(5)]
    assert processes_carrying(token) == []


async def test_a_run_cannot_find_or_change_another_runs_files(
    sandbox: CodeSandbox, token: str, cancel_later: Callable[[asyncio.Task[CodeRun]], None]
) -> None:
    progress = Progress()
    first = (
        f"open('secret-{token}', 'w').write('mine')\n"
        "print('ready', flush=True)\n"
        "import time\n"
        "time.sleep(60)\n"
    )
    running = asyncio.create_task(sandbox.run(first, seconds=60, on_stdout=progress))
    cancel_later(running)
    await progress.reached("ready", running)
    second = (
        "import os\n"
        "found = []\n"
        "for root, dirs, files in os.walk('/'):\n"
        "    dirs[:] = [d for d in dirs if os.path.join(root, d) not in ('/proc', '/usr')]\n"
        f"    if 'secret-{token}' in files:\n"
        f"        path = os.path.join(root, 'secret-{token}')\n"
        "        found.append(path)\n"
        "        try:\n"
        "            open(path, 'w').write('changed')\n"
        "        except OSError as exc:\n"
        "            found.append(type(exc).__name__)\n"
        "print(found)\n"
    )
    run = await sandbox.run(second, seconds=30)
    assert run.stdout == "[]\n"
    assert not running.done()


@pytest.fixture
def readable_data_dir() -> Iterator[Path]:
    """A data directory as an old install left it: world-readable, outside any home."""
    path = Path(tempfile.mkdtemp(prefix="assistant-data-"))
    (path / "custom_tools").mkdir()
    (path / "assistant.db").write_bytes(b"SQLite format 3\0notes: the wifi password is hunter2")
    (path / ".env").write_text("TELEGRAM_BOT_TOKEN=123456789:AAE-secret\n")
    (path / "custom_tools" / "dice.py").write_text("SECRET = 'custom tool source'\n")
    for item in (path, path / "custom_tools"):
        item.chmod(0o755)
    for item in (path / "assistant.db", path / ".env", path / "custom_tools" / "dice.py"):
        item.chmod(0o644)
    yield path
    shutil.rmtree(path)


async def test_the_code_cannot_read_the_data_directory_or_the_project(
    sandbox: CodeSandbox, readable_data_dir: Path
) -> None:
    targets = [
        readable_data_dir / "assistant.db",
        readable_data_dir / ".env",
        readable_data_dir / "custom_tools" / "dice.py",
        THIS_FILE.parents[2] / "pyproject.toml",
        THIS_FILE,
    ]
    code = (
        "for path in " + repr([str(t) for t in targets]) + ":\n"
        "    try:\n"
        "        open(path, 'rb').read()\n"
        "        print('read', path)\n"
        "    except OSError as exc:\n"
        "        print(type(exc).__name__)\n"
    )
    run = await sandbox.run(code, seconds=10)
    assert run.stdout.splitlines() == ["FileNotFoundError"] * len(targets)


async def test_the_code_sees_only_its_own_processes(sandbox: CodeSandbox) -> None:
    code = "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
    run = await sandbox.run(code, seconds=10)
    assert run.stdout == "[1, 2]\n"  # the sandbox's init and the code itself


async def test_the_code_has_no_network_not_even_the_hosts_loopback(
    sandbox: CodeSandbox,
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = (
            "import socket\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=5)\n"
            "    print('connected')\n"
            "except OSError as exc:\n"
            "    print(type(exc).__name__)\n"
        )
        run = await sandbox.run(code, seconds=10)
    assert run.stdout == "ConnectionRefusedError\n"


async def test_the_code_runs_in_a_private_scrubbed_directory(
    sandbox: CodeSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSISTANT_TEST_SECRET", "do-not-leak")
    code = (
        "import os, sys\n"
        "print(os.getcwd(), oct(os.stat('.').st_mode & 0o777), sorted(os.listdir('.')))\n"
        "print(sys.flags.isolated, sorted(os.environ))\n"
        "input()\n"
    )
    run = await sandbox.run(code, seconds=10)
    assert run.stdout.splitlines() == [
        "/tmp 0o700 ['main.py']",
        "1 ['HOME', 'LANG', 'PATH', 'PWD', 'TMPDIR']",
    ]
    assert "EOFError" in run.stderr
    assert run.exit_code == 1


async def test_the_code_can_write_only_its_tmp_and_dev_shm(sandbox: CodeSandbox) -> None:
    code = (
        "import errno, os\n"
        "for folder in ['/', '/dev', '/usr', '/usr/lib', '/proc', '/tmp', '/dev/shm']:\n"
        "    try:\n"
        "        open(os.path.join(folder, 'probe'), 'w').close()\n"
        "        print(folder, 'written')\n"
        "    except OSError as exc:\n"
        "        print(folder, errno.errorcode[exc.errno])\n"
    )
    run = await sandbox.run(code, seconds=10)
    assert run.stdout.splitlines() == [
        "/ EROFS",
        "/dev EROFS",
        "/usr EROFS",
        "/usr/lib EROFS",
        "/proc ENOENT",
        "/tmp written",
        "/dev/shm written",
    ]


# Limits.


async def test_an_endless_loop_is_stopped_by_the_timeout(sandbox: CodeSandbox) -> None:
    run = await sandbox.run("while True:\n    pass\n", seconds=1)
    assert run.timed_out
    assert run.duration < 5
    assert "ran longer than its timeout" in run.render()


async def test_a_memory_bomb_is_stopped_by_the_address_space_limit(sandbox: CodeSandbox) -> None:
    run = await sandbox.run("hog = []\nwhile True:\n    hog.append(bytearray(10**7))\n", seconds=10)
    assert not run.timed_out
    assert run.limit == "memory limit"
    assert "MemoryError" in run.stderr


async def test_big_files_are_stopped_by_the_file_size_limit(sandbox: CodeSandbox) -> None:
    run = await sandbox.run("open('big', 'wb').write(b'x' * 2 * 1024**2)\n", seconds=10)
    assert run.limit == "file size limit"
    assert "File too large" in run.stderr


async def test_many_files_are_stopped_by_the_disk_limit(sandbox: CodeSandbox) -> None:
    code = "for n in range(100):\n    open(f'part{n}', 'wb').write(b'x' * 1000_000)\n"
    run = await sandbox.run(code, seconds=10)
    assert run.limit == "disk limit"
    assert "No space left on device" in run.stderr


async def test_output_is_capped(sandbox: CodeSandbox) -> None:
    capped = CodeSandbox(limits=SandboxLimits(output_bytes=1000))
    run = await capped.run("print('x' * 100_000)\n", seconds=10)
    assert run.truncated
    assert run.stdout == "x" * 1000
    assert "(output was cut" in run.render()


async def test_a_signal_that_ends_the_code_is_reported_as_such(sandbox: CodeSandbox) -> None:
    run = await sandbox.run("import os, signal\nos.kill(os.getpid(), signal.SIGXCPU)\n", seconds=5)
    assert run.exit_code == -signal.SIGXCPU
    assert run.limit == "CPU time limit"


# Refusals: no sandbox, no run.


@pytest.mark.parametrize("seconds", [0, -1, 61])
async def test_timeouts_out_of_range_are_refused(seconds: float) -> None:
    with pytest.raises(ToolError, match=rf"timeout {seconds!r} is out of range"):
        await CodeSandbox().run("print(1)", seconds=seconds)


async def test_without_bubblewrap_the_code_is_refused_with_what_to_install() -> None:
    sandbox = CodeSandbox(bwrap="/nonexistent/bwrap")
    with pytest.raises(
        SandboxUnavailableError, match=r"'/nonexistent/bwrap'.*apt-get install bubblewrap"
    ):
        await sandbox.run("print(1)", seconds=5)


@pytest.fixture
def fake_bwrap() -> Iterator[Path]:
    """A bwrap that fails the way it does where user namespaces are disabled."""
    folder = Path(tempfile.mkdtemp(prefix="fake-bwrap-"))
    folder.chmod(0o755)
    script = folder / "bwrap"
    script.write_text(
        "#!/bin/sh\n"
        "echo 'bwrap: No permissions to creating new namespace, likely because the kernel "
        "does not allow non-privileged user namespaces.' >&2\n"
        "exit 1\n"
    )
    script.chmod(0o755)
    yield script
    shutil.rmtree(folder)


async def test_where_namespaces_are_refused_the_code_is_refused_with_bwraps_reason(
    fake_bwrap: Path,
) -> None:
    sandbox = CodeSandbox(bwrap=str(fake_bwrap))
    with pytest.raises(
        SandboxUnavailableError,
        match=r"cannot create a sandbox here: No permissions to creating new namespace.*user namespaces",
    ):
        await sandbox.run("print(1)", seconds=5)


async def test_an_interpreter_missing_in_the_sandbox_is_reported(sandbox: CodeSandbox) -> None:
    missing = CodeSandbox(python="/nonexistent/python3")
    with pytest.raises(SandboxUnavailableError, match=r"none of \['/nonexistent/python3'\]"):
        await missing.run("print(1)", seconds=5)
