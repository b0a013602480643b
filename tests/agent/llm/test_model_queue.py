"""The model's queue serves users in turn: one user's flood never holds up another."""

from __future__ import annotations

import asyncio
import threading

import pytest

from agent.llm import REQUESTER, ChatMessage, ModelQueue, OpenAIBackend, Role, Ticket, ToolMode
from tests.agent.llm.openai_standin import OpenAIStandin, RecordedRequest, StandinReply, completion


def granted(tickets: list[Ticket]) -> list[bool]:
    return [ticket.granted.done() for ticket in tickets]


async def test_one_place_goes_to_the_user_served_longest_ago() -> None:
    queue = ModelQueue(capacity=1)
    flood = [queue.join("mallory") for _ in range(100)]
    alice = queue.join("alice")
    assert granted(flood[:2]) == [True, False]
    assert queue.ahead_of(alice) == 1  # only the request already running
    assert queue.ahead_of(flood[1]) == 2
    queue.leave(flood[0])
    assert alice.granted.done()
    queue.leave(alice)
    assert flood[1].granted.done()
    assert len(queue) == 99


async def test_no_user_holds_more_than_their_share_of_the_places() -> None:
    queue = ModelQueue(capacity=4)
    assert queue.per_user == 2
    flood = [queue.join("mallory") for _ in range(10)]
    assert granted(flood[:3]) == [True, True, False]
    alice, bob = queue.join("alice"), queue.join("bob")
    assert alice.granted.done() and bob.granted.done()  # no wait at all
    carol = queue.join("carol")
    assert queue.ahead_of(carol) == 4
    queue.leave(alice)
    assert carol.granted.done()  # served before mallory's next, who had a place
    assert not flood[2].granted.done()


async def test_users_waiting_are_served_in_turn() -> None:
    queue = ModelQueue(capacity=1)
    running = queue.join("x")
    waiting = [queue.join(user) for user in ("a", "a", "a", "b", "b", "c")]
    served: list[Ticket] = []
    for _ in waiting:
        queue.leave(running)
        [running] = [t for t in waiting if t.granted.done() and t not in served]
        served.append(running)
    assert [ticket.user for ticket in served] == ["a", "b", "c", "a", "b", "a"]


async def test_the_requester_is_the_turn_s_user_and_a_waiting_request_can_leave() -> None:
    queue = ModelQueue(capacity=1, notice_after=0.01)
    REQUESTER.set("alice")
    running = queue.join()
    assert running.user == "alice"
    waiting = queue.join("bob")
    queue.leave(waiting)  # given up before its turn
    assert len(queue) == 1
    queue.leave(running)
    assert len(queue) == 0


@pytest.mark.parametrize("capacity", [0, -1])
def test_a_queue_needs_a_place(capacity: int) -> None:
    with pytest.raises(ValueError, match="capacity must be 1 or more"):
        ModelQueue(capacity=capacity)


async def test_a_flood_of_slow_requests_from_one_user_never_holds_up_another() -> None:
    """Against a real server on 127.0.0.1 that holds every one of mallory's requests until
    the end: alice's answer comes while all of them still wait, and mallory never had more
    than half of the backend's places."""
    release = threading.Event()
    lock = threading.Lock()
    running = {"now": 0, "most": 0}

    def answer(request: RecordedRequest) -> StandinReply:
        text = request.messages[-1]["content"]
        if text.startswith("flood"):
            with lock:
                running["now"] += 1
                running["most"] = max(running["most"], running["now"])
            release.wait(30)
            with lock:
                running["now"] -= 1
        return completion(f"answer to {text}")

    async def ask(backend: OpenAIBackend, user: str, text: str) -> str:
        REQUESTER.set(user)  # as the agent does for the turn it runs (each task has its own)
        response = await backend.complete([ChatMessage(Role.USER, text)])
        return response.text

    with OpenAIStandin(answer) as server:
        backend = OpenAIBackend(
            model="m", base_url=server.url, mode=ToolMode.CONTRACT, concurrency=4
        )
        try:
            flood = [asyncio.create_task(ask(backend, "mallory", f"flood {n}")) for n in range(40)]
            await asyncio.sleep(0)  # every one of them has taken its place in the queue
            alice = await asyncio.wait_for(ask(backend, "alice", "hello"), timeout=20)
            assert not any(task.done() for task in flood)
        finally:
            release.set()
        answers = await asyncio.gather(*flood)
        await backend.aclose()
    assert alice == "answer to hello"
    assert len(answers) == 40
    assert running["most"] == 2
