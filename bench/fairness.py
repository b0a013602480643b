"""Another user's message under one user's flood of slow model requests (issue 24, item 9).

Run with ``.venv/bin/python -m bench.fairness`` (``--flood 120 --slots 2 --seconds 0.5``).
A stand-in OpenAI-compatible server on 127.0.0.1 answers every completion after
``--seconds``, ``--slots`` at a time (as Ollama's or llama.cpp's parallel slots do); the rest
wait in its own line, first come first served. The user ``mallory`` sends ``--flood``
completions at once through the project's ``OpenAIBackend``; 50 ms later ``alice`` sends
one. Printed, for each way of queueing: how long alice waited for her answer, and how long
the flood took in all.

- ``fair``: the backend as configured by default (``ASSISTANT_LLM_CONCURRENCY`` 8: at most 8
  in flight, users served in turn, no user holding more than half of the places);
- ``unlimited``: every request sent at once (what the backend did before: only httpx's pool
  of 100 connections in the way), so alice's request joins the server's line behind the
  flood.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agent.llm import REQUESTER, ChatMessage, OpenAIBackend, Role, ToolMode

UNLIMITED = 1_000


@contextmanager
def slow_server(slots: int, seconds: float) -> Iterator[str]:
    """A chat-completions server answering after ``seconds``, ``slots`` at a time, in the
    order the requests came."""
    line = threading.Semaphore(slots)  # Python's semaphore wakes waiters in FIFO order

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            """Quiet."""

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with line:
                time.sleep(seconds)
            body = json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "ok"},
                            "finish_reason": "stop",
                        }
                    ],
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    class Server(ThreadingHTTPServer):
        request_queue_size = 256  # the flood connects all at once
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


async def ask(backend: OpenAIBackend, user: str) -> float:
    """One completion for ``user``; the seconds it took."""
    REQUESTER.set(user)
    started = time.perf_counter()
    await backend.complete([ChatMessage(Role.USER, f"hello from {user}")])
    return time.perf_counter() - started


async def scenario(url: str, *, concurrency: int, flood: int) -> tuple[float, float]:
    """Alice's wait and the flood's whole time, in seconds."""
    backend = OpenAIBackend(
        model="m", base_url=url, mode=ToolMode.CONTRACT, concurrency=concurrency, timeout=600
    )
    try:
        started = time.perf_counter()
        flooding = [asyncio.create_task(ask(backend, "mallory")) for _ in range(flood)]
        await asyncio.sleep(0.05)
        alice = await ask(backend, "alice")
        await asyncio.gather(*flooding)
        return alice, time.perf_counter() - started
    finally:
        await backend.aclose()


async def main(flood: int, slots: int, seconds: float) -> None:
    print(
        f"{flood} completions from one user at once, then one from another; the server "
        f"answers each after {seconds} s, {slots} at a time"
    )
    print(f"{'queueing':<12} {'alice waited':>14} {'the flood took':>16}")
    with slow_server(slots, seconds) as url:
        for name, concurrency in (("fair", 8), ("unlimited", UNLIMITED)):
            alice, whole = await scenario(url, concurrency=concurrency, flood=flood)
            print(f"{name:<12} {alice:>12.2f} s {whole:>14.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--flood", type=int, default=120)
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=0.5)
    options = parser.parse_args()
    asyncio.run(main(options.flood, options.slots, options.seconds))
