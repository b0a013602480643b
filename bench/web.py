"""The HTTP API under load: time to the first streamed token, chat round trips under 50
concurrent clients, and the server's memory.

Run with ``.venv/bin/python -m bench.web`` from the repository root. The server is the real
web front end (``assistant.frontends.open_web``, uvicorn on 127.0.0.1) in a process of its own
(``--serve``), with a scripted model that streams its answer word by word and takes no time
to think, so the figures are the framework's: HTTP, the AG-UI encoding, the agent loop and
SQLite. The clients run in this process with httpx.

    first token         POST /agent/stream -> the first TEXT_MESSAGE_CONTENT line (target < 5 ms),
                        in a new conversation, and in one that grows (its history is loaded)
    round trip          POST /agent/chat, 50 clients at once (each its own user), p50 / p99
    memory              the server's resident memory after the load (VmRSS) and its peak (VmHWM)
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

ANSWER = (
    "Sure. Here is what I found: your week looks calm, with two reminders on Tuesday, a "
    "call on Thursday afternoon and the plants to water on Sunday. Anything else?"
)
WARMUP = 20
FIRST_TOKEN_TARGET_MS = 5.0


def token(user: int) -> str:
    """The bench's API token of user ``user``."""
    return hashlib.sha256(f"bench-token-{user}".encode()).hexdigest()[:32]


def tokens(users: int) -> str:
    """ASSISTANT_API_TOKENS for ``users`` users."""
    return ",".join(f"{token(u)}:user{u}" for u in range(users))


# -- the server process ----------------------------------------------------------------------


async def serve(data_dir: Path, users: int, planner: bool) -> None:
    """Serve the web front end until SIGTERM; print ``ready PORT`` once it listens."""
    from agent.llm import ScriptedBackend, ToolMode
    from assistant.config import Settings
    from assistant.frontends import open_web

    settings = Settings.model_validate(
        {
            "ASSISTANT_DATA_DIR": str(data_dir),
            "ASSISTANT_TIMEZONE": "Europe/Berlin",
            "ASSISTANT_LLM_BASE_URL": "",
            "ASSISTANT_API_TOKENS": tokens(users),
            "ASSISTANT_WEB_PORT": 0,
            "TELEGRAM_BOT_TOKEN": None,
        }
    )
    backend = None if planner else ScriptedBackend(lambda _: ANSWER, mode=ToolMode.CONTRACT)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with open_web(settings, backend=backend) as front:
        print(f"ready {front.server.port}", flush=True)
        await stop.wait()


# -- the clients -----------------------------------------------------------------------------


class Server:
    """The server process: started with ``start``, stopped with ``stop``."""

    def __init__(self, data_dir: Path, users: int, *, planner: bool) -> None:
        self._args = ["--serve", "--data", str(data_dir), "--users", str(users)]
        if planner:
            self._args.append("--planner")
        self.process: asyncio.subprocess.Process | None = None
        self.url = ""

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.web", *self._args,
            stdout=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        assert self.process.stdout is not None
        line = (await asyncio.wait_for(self.process.stdout.readline(), 60)).decode()
        if not line.startswith("ready "):
            raise RuntimeError(f"the web server did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"

    def memory_mb(self) -> tuple[float, float]:
        """The server's resident memory now and its peak, in MB (from /proc)."""
        assert self.process is not None
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="utf-8")
        values = {
            line.split(":")[0]: float(line.split()[1]) / 1024
            for line in status.splitlines()
            if line.startswith(("VmRSS:", "VmHWM:"))
        }
        return values["VmRSS"], values["VmHWM"]

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(self.process.wait(), 30)


async def first_token_ms(client: httpx.AsyncClient, chat: str) -> tuple[float, float]:
    """One streamed turn in ``chat``: milliseconds to the first text piece, and to the end."""
    began = time.perf_counter()
    first = None
    body = {"message": "how does my week look?", "chat_id": chat}
    async with client.stream("POST", "/agent/stream", json=body) as response:
        async for line in response.aiter_lines():
            if first is None and '"TEXT_MESSAGE_CONTENT"' in line:
                first = time.perf_counter()
    done = time.perf_counter()
    if first is None:
        raise RuntimeError("the stream carried no text")
    return (first - began) * 1000, (done - began) * 1000


async def measure_first_token(url: str, turns: int) -> tuple[list[float], list[float], list[float]]:
    """Streamed turns, each in a new conversation, then ``turns`` more in one conversation
    that grows to ``turns`` turns; return the first-token times of both and the whole-answer
    times of the first."""
    headers = {"Authorization": f"Bearer {token(0)}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
        for number in range(WARMUP):
            await first_token_ms(client, f"warm-{number}")
        fresh = [await first_token_ms(client, f"new-{number}") for number in range(turns)]
        growing = [await first_token_ms(client, "long") for _ in range(turns)]
    return [f for f, _ in fresh], [w for _, w in fresh], [f for f, _ in growing]


async def measure_round_trips(
    url: str, clients: int, messages: int, text: str
) -> tuple[list[float], float, int]:
    """``clients`` users chatting at once; return the latencies (ms), the wall time and
    how many answers were wrong."""
    latencies: list[float] = []
    wrong = 0

    async def user(number: int) -> None:
        nonlocal wrong
        headers = {"Authorization": f"Bearer {token(number)}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
            await client.post("/agent/chat", json={"message": text})  # connect, warm up
            for _ in range(messages):
                began = time.perf_counter()
                response = await client.post("/agent/chat", json={"message": text})
                latencies.append((time.perf_counter() - began) * 1000)
                if response.status_code != 200 or not response.json()["reply"]:
                    wrong += 1

    began = time.perf_counter()
    await asyncio.gather(*(user(n) for n in range(clients)))
    return latencies, time.perf_counter() - began, wrong


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def bench(turns: int, clients: int, messages: int) -> int:
    ok = True
    with tempfile.TemporaryDirectory(prefix="assistant-web-bench-") as folder:
        server = Server(Path(folder) / "scripted", clients, planner=False)
        await server.start()
        try:
            firsts, wholes, growing = await measure_first_token(server.url, turns)
            latencies, wall, wrong = await measure_round_trips(
                server.url, clients, messages, "how does my week look?"
            )
            rss, peak = server.memory_mb()
        finally:
            await server.stop()
        planner = Server(Path(folder) / "planner", clients, planner=True)
        await planner.start()
        try:
            planned, planned_wall, planned_wrong = await measure_round_trips(
                planner.url, clients, messages, "what's on my schedule?"
            )
            planner_rss, planner_peak = planner.memory_mb()
        finally:
            await planner.stop()

    p50 = statistics.median(firsts)
    verdict = "ok" if p50 < FIRST_TOKEN_TARGET_MS else "MISSED"
    ok = ok and p50 < FIRST_TOKEN_TARGET_MS and not wrong and not planned_wrong
    print(f"machine                      {os.cpu_count()} cores; server and clients share them")
    print(
        f"first token, new chat        p50 {p50:.2f} ms p99 {percentile(firsts, 0.99):.2f} ms "
        f"(target p50 < {FIRST_TOKEN_TARGET_MS:g} ms: {verdict}); whole answer p50 "
        f"{statistics.median(wholes):.2f} ms ({turns} turns, scripted model)"
    )
    print(
        f"first token, long chat       p50 {statistics.median(growing):.2f} ms p99 "
        f"{percentile(growing, 0.99):.2f} ms (one conversation growing to {turns} turns: "
        "its history is loaded each turn)"
    )
    for label, values, seconds, bad in (
        ("round trip, scripted model", latencies, wall, wrong),
        ("round trip, offline planner", planned, planned_wall, planned_wrong),
    ):
        print(
            f"{label:<29}{clients} clients x {messages}: p50 {percentile(values, 0.5):.1f} ms "
            f"p99 {percentile(values, 0.99):.1f} ms max {max(values):.1f} ms; "
            f"{len(values) / seconds:.0f} chats/s; {bad} failed"
        )
    print(
        f"server memory                scripted: RSS {rss:.0f} MB (peak {peak:.0f} MB); "
        f"planner: RSS {planner_rss:.0f} MB (peak {planner_peak:.0f} MB)"
    )
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=200, help="streamed turns timed")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument("--messages", type=int, default=20, help="chats per client")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--users", type=int, default=50, help=argparse.SUPPRESS)
    parser.add_argument("--planner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        asyncio.run(serve(args.data, args.users, args.planner))
        return 0
    return asyncio.run(bench(args.turns, args.clients, args.messages))


if __name__ == "__main__":
    raise SystemExit(main())
