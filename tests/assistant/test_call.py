"""``assistant call``: one tool, directly, in a real process, with the approval prompt."""

import json
import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testing.serve_process import AT_A_TERMINAL
from tests.assistant.test_cli import run, tasks_json


def test_a_tool_runs_and_prints_what_a_person_reads(tmp_path: Path) -> None:
    done = run(
        "call", "add_reminder", '{"message": "stretch", "when": "tomorrow at 9am"}',
        data_dir=tmp_path,
    )  # fmt: skip

    assert "09:00" in done.stdout and "stretch" in done.stdout
    [task] = tasks_json(tmp_path)
    assert task["description"] == "stretch"
    assert task["id"] in done.stdout


def test_json_output_carries_the_tools_output_as_an_object(tmp_path: Path) -> None:
    run("call", "save_note", '{"content": "the wifi password is on the fridge"}', data_dir=tmp_path)

    done = run("call", "search_memory", '{"query": "wifi"}', "--json", data_dir=tmp_path)

    payload = json.loads(done.stdout)
    assert payload["tool"] == "search_memory"
    assert payload["status"] == "ok"
    assert "fridge" in payload["text"]
    [hit] = payload["output"]  # records as objects, enums as values: no Python reprs
    assert hit["kind"] == "note"
    assert "fridge" in hit["text"]
    assert "HitKind" not in done.stdout and "datetime.datetime" not in done.stdout
    assert done.stderr == ""


def test_arguments_can_come_from_stdin(tmp_path: Path) -> None:
    typed = '{"message": "call mum", "when": "in 2 hours"}'
    done = run("call", "add_reminder", "-", data_dir=tmp_path, typed=typed)

    assert "call mum" in done.stdout
    assert [t["description"] for t in tasks_json(tmp_path)] == ["call mum"]


def test_no_arguments_means_an_empty_object(tmp_path: Path) -> None:
    done = run("call", "get_current_time", data_dir=tmp_path)

    assert "America/New_York" in done.stdout


def test_a_refused_schedule_is_chats_message_and_status_1(tmp_path: Path) -> None:
    done = run(
        "call", "add_reminder", '{"message": "x", "when": "blorp o clock"}',
        data_dir=tmp_path, check=False,
    )  # fmt: skip

    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith("error: ") and "blorp" in line and "e.g." in line
    assert tasks_json(tmp_path) == []


def test_wrong_calls_exit_2_saying_what_would_work(tmp_path: Path) -> None:
    misspelt = run("call", "add_remindr", "{}", data_dir=tmp_path, check=False)
    assert misspelt.returncode == 2
    assert "Did you mean 'add_reminder'?" in misspelt.stderr

    missing = run(
        "call", "add_recurring_task", '{"description": "water", "schedule": "daily"}',
        data_dir=tmp_path, check=False,
    )  # fmt: skip
    assert missing.returncode == 2
    # What the schema accepts, as a model is told: every value of the enum.
    assert "missing required argument 'task_type'" in missing.stderr
    assert '"reminder", "agent_task", "web_search", "api_call"' in missing.stderr

    not_json = run("call", "list_tasks", "{oops", data_dir=tmp_path, check=False)
    assert not_json.returncode == 2
    assert "not JSON" in not_json.stderr and "line 1, column 2" in not_json.stderr

    array = run("call", "list_tasks", "[1, 2]", data_dir=tmp_path, check=False)
    assert array.returncode == 2
    assert "a JSON array, not an object" in array.stderr
    for done in (misspelt, missing, not_json, array):
        assert done.stdout == ""
        assert done.stderr.startswith("error: ")
    for done in (misspelt, not_json, array):
        assert len(done.stderr.splitlines()) == 1


def test_a_gated_call_without_a_terminal_waits_and_nothing_runs(tmp_path: Path) -> None:
    code = '{"code": "open(\\"ran\\", \\"w\\").write(\\"yes\\")"}'
    done = run("call", "execute_code", code, "--json", data_dir=tmp_path, check=False)

    assert done.returncode == 4
    payload = json.loads(done.stdout)
    assert payload["status"] == "pending_approval"
    request = payload["approval"]
    assert request["tool"] == "execute_code"
    assert request["arguments"] == json.loads(code)
    assert request["expires_at"].endswith(("-05:00", "-04:00"))  # the user's zone

    plain = run("call", "execute_code", code, data_dir=tmp_path, check=False)
    assert plain.returncode == 4
    assert "Waiting for your approval: execute_code" in plain.stdout
    assert "/approve ap" in plain.stderr
    assert not (tmp_path / "ran").exists()


def _at_a_terminal(data_dir: Path, *args: str, answer: str) -> tuple[int, str]:
    """Run ``assistant ARGS`` with a terminal as its standard input, typing ``answer``."""
    leader, follower = pty.openpty()
    try:
        os.write(leader, answer.encode() + b"\n")
        done = subprocess.run(
            [sys.executable, "-m", "assistant.cli", *args],
            stdin=follower,
            capture_output=True,
            text=True,
            env={
                "PATH": os.environ.get("PATH", ""),
                "HOME": str(data_dir),
                "ASSISTANT_DATA_DIR": str(data_dir),
            },
            cwd=data_dir,
            timeout=60,
            check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)
    return done.returncode, done.stdout + done.stderr


def test_at_a_terminal_a_gated_call_asks_and_runs_once_approved(tmp_path: Path) -> None:
    status, said = _at_a_terminal(
        tmp_path, "call", "execute_code", '{"code": "print(6 * 7)"}', answer="y"
    )

    assert "Approve execute_code (high risk;" in said
    assert "[y/n]" in said
    assert "42" in said
    assert status == 0


def test_at_a_terminal_a_denied_call_does_not_run(tmp_path: Path) -> None:
    status, said = _at_a_terminal(
        tmp_path, "call", "execute_code", '{"code": "print(6 * 7)"}', answer="n"
    )

    assert "denied" in said
    assert "42" not in said
    assert status == 1


def _hanging_server(data_dir: Path) -> Path:
    """An mcp.json naming a server that starts and never answers; it writes its pid."""
    pid_file = data_dir / "hang.pid"
    code = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)"
    servers = {"hang": {"command": sys.executable, "args": ["-c", code]}}
    (data_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return pid_file


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_server_that_never_answers_holds_up_no_call(tmp_path: Path) -> None:
    pid_file = _hanging_server(tmp_path)

    ours = run("call", "get_current_time", data_dir=tmp_path)
    assert "America/New_York" in ours.stdout
    assert not pid_file.exists()  # a call of our own tool starts no MCP server

    theirs = run("call", "hang.lookup", "{}", data_dir=tmp_path, check=False)
    assert theirs.returncode == 2
    assert theirs.stderr.splitlines()[-1] == (
        "error: Unknown tool 'hang.lookup': its MCP server 'hang' is still starting; try again "
        "once it is up ('assistant tools' shows how each server stands)"
    )
    # The command ended, and the server it started ended with it.
    assert _gone(int(pid_file.read_text()))


def test_ask_that_the_planner_answers_starts_no_mcp_server(tmp_path: Path) -> None:
    pid_file = _hanging_server(tmp_path)
    # A model is configured (nothing listens there): the planner answers without it.
    model = {"ASSISTANT_LLM_BASE_URL": "http://127.0.0.1:9/v1"}

    done = run("ask", "what time is it?", data_dir=tmp_path, env=model)

    assert "America/New_York" in done.stdout
    assert not pid_file.exists()


def test_a_request_left_by_call_is_decided_in_chat_with_its_result(tmp_path: Path) -> None:
    code = '{"code": "print(6 * 7)"}'
    waiting = run("call", "execute_code", code, "--json", data_dir=tmp_path, check=False)
    request = json.loads(waiting.stdout)["approval"]["id"]

    chat = run("chat", data_dir=tmp_path, typed=f"/approve {request}\n")

    assert "42" in chat.stdout
    assert "I understand only a few kinds of requests" not in chat.stdout  # not the help text


def test_ctrl_c_at_the_question_stops_the_call_at_once(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    code = '{"code": "open(\\"ran\\", \\"w\\").write(\\"yes\\")"}'
    command = ["-m", "assistant.cli", "call", "execute_code", code]
    try:
        with subprocess.Popen(
            [sys.executable, "-c", AT_A_TERMINAL, *command],
            stdin=follower,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={
                "PATH": os.environ.get("PATH", ""),
                "HOME": str(tmp_path),
                "ASSISTANT_DATA_DIR": str(tmp_path),
                "PYTHONFAULTHANDLER": "1",
            },
            cwd=tmp_path,
        ) as process:
            try:
                assert process.stderr is not None
                asked = b""
                while b"[y/n]" not in asked:
                    chunk = os.read(process.stderr.fileno(), 4096)
                    assert chunk, asked
                    asked += chunk
                process.send_signal(signal.SIGINT)  # what Ctrl-C sends
                try:
                    status = process.wait(timeout=15)  # before: it waited for Enter
                except subprocess.TimeoutExpired:
                    process.send_signal(signal.SIGABRT)  # faulthandler: every thread's stack
                    process.wait(timeout=5)
                    later = process.stderr.read() or b""
                    pytest.fail(f"no exit 15 s after SIGINT; it wrote {asked + later!r}")
            finally:
                process.kill()
    finally:
        os.close(follower)
        os.close(leader)

    assert status == 130
    assert not (tmp_path / "ran").exists()


def test_sigterm_stops_a_command_and_the_mcp_servers_it_started(tmp_path: Path) -> None:
    pid_file = _hanging_server(tmp_path)
    with subprocess.Popen(
        [sys.executable, "-m", "assistant.cli", "tools"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", ""), "ASSISTANT_DATA_DIR": str(tmp_path)},
        cwd=tmp_path,
    ) as process:
        try:
            deadline = time.monotonic() + 30
            while not pid_file.exists() or not pid_file.read_text():
                assert time.monotonic() < deadline, "the MCP server never started"
                time.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            status = process.wait(timeout=15)
        finally:
            process.kill()

    assert status == 143
    assert _gone(int(pid_file.read_text()))  # stopped with it, not left to init
