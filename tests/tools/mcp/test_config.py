"""``mcp.json``: the format MCP clients share, our keys beside it, and one line per mistake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tools.mcp import HttpEndpoint, McpConfig, StdioLaunch, load_config, parse_config

SECRETS = {"TRACKER_TOKEN": "trk-5Vn8Qe2Lz", "FS_KEY": "fs-Wq9Zr4Tt"}


def lookup(name: str) -> str:
    if name not in SECRETS:
        raise LookupError(f"${{{name}}} is not set: set {name} in the environment or in .env")
    return SECRETS[name]


def read(servers: Any, *, folder: Path | None = None) -> McpConfig:
    return parse_config(
        json.dumps({"mcpServers": servers}), source="mcp.json", secrets=lookup, folder=folder
    )


def test_a_missing_file_means_no_servers_and_says_nothing(tmp_path: Path) -> None:
    assert load_config(tmp_path / "mcp.json") == McpConfig(source=str(tmp_path / "mcp.json"))


def test_the_shared_format_and_our_keys_are_read_with_their_secrets(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    config = read(
        {
            "files": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-filesystem", "/notes"],
                "env": {"FS_KEY": "${FS_KEY}", "MODE": "plain"},
                "cwd": "work",
                "readOnly": ["read_file"],
            },
            "my-tracker": {
                "type": "http",
                "url": "https://mcp.example.com/mcp?key=${TRACKER_TOKEN}",
                "headers": {"Authorization": "Bearer ${TRACKER_TOKEN}"},
                "readOnly": True,
                "timeout": 120,
            },
            "old": {"command": "old-server", "disabled": True},
        },
        folder=tmp_path,
    )

    assert config.problems == ()
    assert config.disabled == ("old",)
    files, tracker = config.servers
    assert files.transport == StdioLaunch(
        command="npx",
        args=("-y", "@modelcontextprotocol/server-filesystem", "/notes"),
        env={"FS_KEY": SECRETS["FS_KEY"], "MODE": "plain"},
        cwd=tmp_path / "work",
    )
    assert (files.is_read_only("read_file"), files.is_read_only("write_file")) == (True, False)
    assert files.timeout == 60
    assert tracker.name == "my_tracker"  # as its tools are called: my_tracker.create_issue
    assert tracker.transport == HttpEndpoint(
        url=f"https://mcp.example.com/mcp?key={SECRETS['TRACKER_TOKEN']}",
        headers={"Authorization": f"Bearer {SECRETS['TRACKER_TOKEN']}"},
    )
    assert tracker.is_read_only("anything") and tracker.timeout == 120
    assert sorted(config.secret_values()) == sorted([*SECRETS.values(), SECRETS["TRACKER_TOKEN"]])
    shown = repr(config) + tracker.transport.describe()
    assert not any(secret in shown for secret in SECRETS.values())


def test_a_file_that_is_not_json_is_one_problem_with_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {\n  "files": {"command": "npx",}\n}}\n')

    config = load_config(path)

    assert config.servers == ()
    assert config.problems == (
        f"{path}: not valid JSON at line 2, column 30: Expecting property name enclosed in "
        "double quotes; no MCP servers were loaded from it",
    )


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ("[]", 'the file must hold a JSON object like {"mcpServers": {...}}, not a list'),
        (
            '{"servers": {}}',
            'the file has no "mcpServers" object (it has "servers": rename that key)',
        ),
        ('{"mcpServers": []}', '"mcpServers" must be an object of servers by name, like {"files"'),
    ],
)
def test_a_file_of_the_wrong_shape_says_what_shape_it_needs(document: str, problem: str) -> None:
    config = parse_config(document, source="mcp.json")

    [said] = config.problems
    assert config.servers == ()
    assert said.startswith(f"mcp.json: {problem}")
    assert said.endswith("; no MCP servers were loaded from it")


LEFT_OUT = [
    ({"command": 5}, "MCP server 'x': 'command' must be the program to run"),
    ({"command": "npx", "args": "-y pkg"}, "'args' must be a list of strings"),
    ({"command": "npx", "env": {"KEY": 123}}, "'env' must be an object of strings"),
    ({"command": "npx", "url": "https://h/mcp"}, "has both 'command' and 'url'"),
    ({"args": ["x"]}, "has neither 'command' nor 'url'"),
    ({"url": "ftp://h/mcp"}, "'url' must be an http(s) URL with a host"),
    ({"url": "https://h/mcp", "headers": {"Bad Name": "v"}}, "a name 'Bad Name' that HTTP"),
    ({"type": "sse", "url": "https://h/sse"}, "a transport the assistant does not speak"),
    ({"type": "stdio", "url": "https://h/mcp"}, "'type' \"stdio\" needs 'command'"),
    ({"type": "pipe", "command": "x"}, "'type' must be \"stdio\" (with 'command') or \"http\""),
    ({"command": "x", "cwd": "/no/such/folder"}, "'cwd' '/no/such/folder' is not a folder"),
    (
        {"command": "x", "env": {"KEY": "${NOT_SET}"}},
        "MCP server 'x', env.KEY: ${NOT_SET} is not set: set NOT_SET in the environment",
    ),
    (
        {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${NOT_SET}"}},
        "MCP server 'x', headers.Authorization: ${NOT_SET} is not set",
    ),
    ("npx", "MCP server 'x' must be an object such as"),
]


@pytest.mark.parametrize(("entry", "problem"), LEFT_OUT)
def test_a_mistake_that_leaves_a_server_out_names_it_and_the_key(entry: Any, problem: str) -> None:
    config = read({"x": entry, "fine": {"command": "fine-server"}})

    assert [server.name for server in config.servers] == ["fine"]
    [said] = config.problems
    assert said.startswith("mcp.json: ")
    assert problem in said
    assert "left out" in said


def test_a_secret_in_a_bad_value_is_never_quoted() -> None:
    config = read({"x": {"command": "npx", "env": {"TOKEN": "hunter2-secret", "N": 5}}})

    [said] = config.problems
    assert "hunter2-secret" not in said
    assert "'N' is not a string (quote it)" in said


KEPT = [
    ({"readOnly": "yes"}, "'readOnly' must be true, false or a list", False, 60.0),
    ({"timeout": -1}, "'timeout' must be the seconds a call may take", False, 60.0),
    ({"timeout": True}, "not true; 60 is used", False, 60.0),
    (
        {"readonly": True},
        "the key 'readonly' is not one the assistant reads (did you mean 'readOnly'?",
        False,
        60.0,
    ),
    ({"disabled": "no"}, "'disabled' must be true or false", False, 60.0),
]


@pytest.mark.parametrize(("keys", "problem", "read_only", "timeout"), KEPT)
def test_a_mistake_that_changes_nothing_dangerous_keeps_the_server_and_says_so(
    keys: dict[str, Any], problem: str, read_only: bool, timeout: float
) -> None:
    config = read({"x": {"command": "npx", **keys}})

    [server] = config.servers
    [said] = config.problems
    assert problem in said
    assert server.is_read_only("any_tool") is read_only  # a mistake never grants read-only
    assert server.timeout == timeout


def test_names_that_would_meet_in_tool_names_or_are_unusable_are_refused() -> None:
    config = parse_config(
        '{"mcpServers": {"a-b": {"command": "x"}, "a_b": {"command": "y"}, "": {"command": "z"},'
        ' "twice": {"command": "1"}, "twice": {"command": "2", "command": "3"}}}',
        source="mcp.json",
    )

    assert [(s.name, s.transport) for s in config.servers] == [
        ("a_b", StdioLaunch(command="x")),
        ("twice", StdioLaunch(command="3")),
    ]
    assert config.problems == (
        "mcp.json: MCP server 'twice' is defined twice; the last definition is used",
        "mcp.json: the MCP server names 'a-b' and 'a_b' both become 'a_b' in tool names; "
        "rename one ('a_b' was left out)",
        "mcp.json: the MCP server name '' must have 1 to 64 letters, digits, '_' or '-' (its "
        "tools are called NAME.tool); the server was left out",
        "mcp.json: MCP server 'twice': 'command' is given twice; the last one is used",
    )


def test_a_file_that_cannot_be_read_is_one_problem(tmp_path: Path) -> None:
    config = load_config(tmp_path)  # a folder where the file should be

    assert config.servers == ()
    assert config.problems == (f"{tmp_path}: cannot be read: Is a directory",)
