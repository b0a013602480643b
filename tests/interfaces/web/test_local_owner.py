"""`assistant web` without API tokens belongs to the account that started it (issue 24, item 5).

The attack as written: the owner runs `assistant web` without tokens; another account on the
same machine (the unprivileged ``nobody``), connecting to 127.0.0.1, read the owner's notes,
wrote one, and approved their pending api_call. Here the owner is this test's process (root
where the check runs), the server a real `assistant web` process, and the attacker a real
Python process started as ``nobody`` with plain sockets. Run by another user than root, the
test cannot change accounts: the attacker is then a process of the same account that was not
given the token (what ``nobody`` has, too), and the file checks say what root's would.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import signal
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

WITHIN = 60  # seconds: a bound on the start of a fresh Python process, never waited out

ATTACK = r"""
import http.client, json, sys
port, approval, pid, token_file = json.loads(sys.argv[1])
found = {}

def ask(name, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    sent = {"Content-Type": "application/json", **(headers or {})}
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=sent)
    answer = conn.getresponse()
    found[name] = [answer.status, answer.read().decode("utf-8", "replace")[:300]]

ask("notes", "GET", "/notes")
ask("write", "POST", "/agent/chat", {"message": "note: nobody was here"})
ask("approvals", "GET", "/approvals")
ask("approve", "POST", f"/approvals/{approval}/approve")
ask("localhost", "GET", "/notes", headers={"Host": "localhost"})
ask("guessed", "GET", "/notes", headers={"Authorization": "Bearer local"})
for name, path in [("token_file", token_file), ("environ", f"/proc/{pid}/environ")]:
    try:
        with open(path, "rb") as file:
            found[name] = ["read", file.read().decode("utf-8", "replace")]
    except OSError as error:
        found[name] = ["refused", type(error).__name__]
with open(f"/proc/{pid}/cmdline", "rb") as file:
    found["cmdline"] = ["read", file.read().decode("utf-8", "replace")]
print(json.dumps(found))
"""


def _attacker() -> tuple[list[str], dict[str, Any]]:
    """The command and the account of the attacking process."""
    if os.geteuid() != 0:
        return [sys.executable], {}
    # ``nobody`` cannot run the venv's interpreter (it lives under /root): a system one.
    python = next(
        (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if Path(p).exists()), None
    )
    if python is None:
        pytest.fail("the attacker needs a python3 that the user 'nobody' can run", pytrace=False)
    nobody = pwd.getpwnam("nobody")
    return [python], {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


async def test_another_account_on_the_machine_gets_nothing_from_a_server_without_tokens(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    env = {
        **os.environ,
        "ASSISTANT_DATA_DIR": str(data),
        "ASSISTANT_TIMEZONE": "Europe/Berlin",
        "ASSISTANT_LLM_BASE_URL": "",
        "ASSISTANT_API_TOKENS": "",
        "TELEGRAM_BOT_TOKEN": "",
    }
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "assistant.cli", "web", "--port", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        ready = (await asyncio.wait_for(server.stdout.readline(), WITHIN)).decode()
        assert ready.startswith("ready: http://127.0.0.1:"), ready
        page = ready.split()[1]
        base, _, fragment = page.partition("/#token=")
        token = fragment
        owner = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=base, headers=owner, timeout=30) as client:
            await client.post("/agent/chat", json={"message": "note: the safe code is 4711"})
            asked = await client.post(
                "/agent/chat", json={"message": "at 1am daily POST http://home.lan/lights/off"}
            )
            [approval] = asked.json()["approvals"]
            command, account = _attacker()
            port = int(base.rsplit(":", 1)[1])
            arguments = [port, approval["id"], server.pid, str(data / "web-token")]
            attack = await asyncio.create_subprocess_exec(
                *command, "-c", ATTACK, json.dumps(arguments),
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                cwd="/", env={"PATH": "/usr/bin:/bin"}, **account,
            )  # fmt: skip
            out, err = await asyncio.wait_for(attack.communicate(), WITHIN)
            assert attack.returncode == 0, err.decode()
            found = json.loads(out)
            notes = (await client.get("/notes")).json()
            pending = (await client.get("/approvals")).json()
            token_file = (data / "web-token").read_text().strip()
            mode = (data / "web-token").stat().st_mode & 0o777
    finally:
        server.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(server.wait(), WITHIN)

    for name in ("notes", "write", "approvals", "approve", "localhost", "guessed"):
        status, body = found[name]
        assert status == 401, (name, status, body)
        assert "4711" not in body
    assert [n["content"] for n in notes] == ["the safe code is 4711"]  # nothing written
    assert [p["id"] for p in pending] == [approval["id"]]  # still waiting for its owner
    assert token_file == token and mode == 0o600
    assert token not in found["cmdline"][1]
    if os.geteuid() == 0:  # another account: the files are not theirs to read
        assert found["token_file"] == ["refused", "PermissionError"]
        assert found["environ"] == ["refused", "PermissionError"]
    assert code == 0
    assert not (data / "web-token").exists()  # removed when the server stopped
