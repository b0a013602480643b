"""Fuzzing the Telegram bot on the real composed app, through the Bot API stand-in.

Random Unicode (control characters, bidi marks, emoji, lone combining marks), 10,000-character
messages, random commands and random or forged button data go to python-telegram-bot running
unmodified against the stand-in, with the app ``assistant.app.open_app`` builds (offline
planner, SQLite). The bot must answer every update (a message or an alert), never take the
error handler's path, keep every outgoing text within Telegram's limits, and stay responsive.
A stranger's updates must run no tool and store no row.

One bot serves all examples of a test (starting one per example would dominate the run), so
each example waits until the bot has dealt with it: a per-example marker command, answered in
the same chat after the fuzzed update (the bot handles one update per chat at a time, in
order), closes each example.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from common import ManualClock
from interfaces import Action, ActionKind
from interfaces.telegram import encode_action
from tasks import TaskStatus
from testing.botapi_standin import BotApiStandin, SentMessage
from tests.interfaces.app_harness import (
    ALICE,
    BOB,
    T0,
    TOKEN,
    AppBot,
    running_app_bot,
    table_counts,
    utf16_units,
)
from tools import ApprovalStatus

pytestmark = pytest.mark.asyncio(loop_scope="module")

FUZZ = settings(
    max_examples=50,
    deadline=None,  # a round trip through HTTP and SQLite varies with the machine's load
    suppress_health_check=[HealthCheck.too_slow],
)
APOLOGY = "error id"
MAX_ALERT = 200
LONG = 10_000
_STRANGERS = itertools.count(900_000_001)
# A command whose first word is addressed to anyone but this bot ("/x@other_bot", "/0@\x1b").
OTHER_BOTS_COMMAND = re.compile(r"/[^\s@]*@(?!assistant_test_bot(?:\s|$))\S")

# --- strategies ------------------------------------------------------------------------------

ANY_CHARACTER = st.characters(codec="utf-8")  # controls included; no lone surrogates (not JSON)
ODD_PIECES = (
    "\x00", "\x07", "\x1b[31m", "\r\n", "\t", "\u0301", "\u0300\u0327", "\u200f", "\u200e",
    "\u202e", "\u2066", "\ufeff", "\u200d", "😀", "👨‍👩‍👧", "🇩🇪", "ß", "İ", "ﷺ", "\U0010fffd",
    "<b>", "*_`[", "```", "{", '"', "\\", "'; DROP TABLE notes; --", "%s", "{0}",
)  # fmt: skip
PLANNER_WORDS = (
    "remind me", "in 5 minutes", "in 2 seconds", "to stretch", "every day at 9am",
    "tomorrow", "at 25:99", "weekdays", "note:", "remember that", "what is", "what are my tasks",
    "cancel", "snooze", "pause", "resume", "list", "my notes", "search", "yes", "no", "approve",
    "0 9 * * 1-5", "-1", "99999999999999999999", "@", "#tag",
)  # fmt: skip
ID_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_.-"  # what button data can carry
COMMAND_NAMES = (
    "start", "help", "tasks", "cancel", "snooze", "runs", "notes", "tz", "approvals", "new",
    "frobnicate", "x", "TASKS", "start_",
)  # fmt: skip


def _pieces() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(ODD_PIECES),
        st.sampled_from(PLANNER_WORDS),
        st.text(ANY_CHARACTER, max_size=6),
        st.just(" "),
    )


def _long(characters: st.SearchStrategy[str], size: int = LONG) -> st.SearchStrategy[str]:
    """A ``size``-character text: a short random piece repeated (hypothesis draws are small)."""
    return st.builds(
        lambda piece: (piece * (size // len(piece) + 1))[:size],
        st.text(characters, min_size=1, max_size=12),
    )


def texts() -> st.SearchStrategy[str]:
    """Random text, soup of odd characters and planner words, or a 10,000-character message."""
    soup = st.lists(_pieces(), min_size=1, max_size=25).map("".join)
    return st.one_of(st.text(ANY_CHARACTER, min_size=1, max_size=200), soup, _long(ANY_CHARACTER))


def commands() -> st.SearchStrategy[str]:
    """A slash command (known or not) with random arguments, some of them 10,000 characters."""
    arguments = st.one_of(
        st.just(""),
        st.text(ANY_CHARACTER, max_size=40).map(" ".__add__),
        _long(ANY_CHARACTER, LONG - 20).map(" ".__add__),
    )
    return st.builds(lambda name, rest: f"/{name}{rest}", st.sampled_from(COMMAND_NAMES), arguments)


def raw_button_data() -> st.SearchStrategy[str]:
    """Any string of at most 64 bytes (Telegram's callback data limit)."""
    return st.text(ANY_CHARACTER, max_size=64).filter(lambda data: len(data.encode()) <= 64)


# --- the bot and its bookkeeping -------------------------------------------------------------


@dataclass(repr=False)
class Fuzzed:
    """A bot for a fuzz test, with other users' things to forge presses against."""

    bot: AppBot
    alice_listing: SentMessage
    alice_data: tuple[str, ...]
    bob_task: str
    bob_request: str
    checked_calls: int = 0
    markers: Iterator[int] = field(default_factory=itertools.count)

    def __repr__(self) -> str:
        return f"Fuzzed(bob_task={self.bob_task!r}, bob_request={self.bob_request!r})"

    @property
    def api(self) -> BotApiStandin:
        """The stand-in."""
        return self.bot.api

    def forged(self, kind: ActionKind, target: str, arg: str) -> str:
        """Well-formed button data naming ``target`` (often something of Bob's)."""
        return encode_action(Action(kind, target, arg))

    def targets(self) -> st.SearchStrategy[str]:
        """Ids to forge presses with: Bob's task and request, Alice's listing, made-up ones."""
        made_up = st.text(ID_CHARACTERS, min_size=1, max_size=12)
        return st.one_of(st.sampled_from([self.bob_task, self.bob_request]), made_up)

    def button_data(self) -> st.SearchStrategy[str]:
        """Random data, data of Alice's buttons (as first sent), or forged data naming Bob's
        things."""
        forged = st.builds(
            self.forged,
            st.sampled_from(list(ActionKind)),
            self.targets(),
            st.sampled_from(["", "10m", "1h", "x"]),
        )
        return st.one_of(raw_button_data(), st.sampled_from(self.alice_data), forged)

    async def settle(self, chat: int) -> list[SentMessage]:
        """Wait until the bot dealt with everything sent to ``chat`` so far; return what it
        sent since then (without the marker's reply)."""
        before = len(self.api.sent_to(chat))
        marker = f"zzmark{next(self.markers)}"
        self.api.send_text(ALICE, f"/runs {marker}", chat_id=chat)
        await self.api.wait_until(
            lambda: any(marker in m.text for m in self.api.sent_to(chat)[before:]), within=10
        )
        sent = self.api.sent_to(chat)[before:]
        return [m for m in sent if marker not in m.text]

    def check_outgoing(self) -> None:
        """Every text the bot sent or edited since the last check fits Telegram's limits."""
        calls = self.api.state.calls[self.checked_calls :]
        self.checked_calls += len(calls)
        for call in calls:
            text = str(call.params.get("text", ""))
            if call.method in ("sendmessage", "editmessagetext"):
                assert 0 < utf16_units(text) <= 4096, f"{call.method} with {utf16_units(text)}"
                assert text.strip(), f"{call.method} with a blank text {text!r}"
            if call.method == "answercallbackquery":
                assert len(text) <= MAX_ALERT
            assert APOLOGY not in text, f"the error handler ran: {text!r}"


@pytest.fixture(scope="module")
def _timedelta_env() -> Iterator[None]:
    """python-telegram-bot's timedelta periods, for the module-wide bot too."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PTB_TIMEDELTA", "true")
        yield


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def fuzzed(
    tmp_path_factory: pytest.TempPathFactory, _timedelta_env: None
) -> AsyncIterator[Fuzzed]:
    """One bot for the module's examples, with a task and a pending request of Bob's."""
    data_dir: Path = tmp_path_factory.mktemp("fuzz")
    async with (
        BotApiStandin(token=TOKEN) as api,
        running_app_bot(api, data_dir, clock=ManualClock(T0)) as bot,
    ):
        await bot.say(ALICE, "remind me in 1 hour to water the plants")
        [listing] = await bot.say_messages(ALICE, "/tasks")
        await bot.say(BOB, "remind me in 2 hours to call mom")
        await bot.say(BOB, "at 1am daily POST http://home.lan/lights/off", replies=1)
        [bob_task] = await bot.app.tasks.list_tasks(str(BOB))
        [request] = await bot.app.memory.list_approvals(str(BOB))
        real = tuple(b.callback_data for row in listing.buttons for b in row)
        yield Fuzzed(bot, listing, real, bob_task.id, request.id)


async def _bob_is_untouched(fuzzed: Fuzzed) -> None:
    task = await fuzzed.bot.app.tasks.get_task(fuzzed.bob_task, str(BOB))
    assert task.status is TaskStatus.ACTIVE
    assert task.next_run == T0 + timedelta(hours=2)
    request = await fuzzed.bot.app.memory.get_approval(fuzzed.bob_request)
    assert request is not None and request.status is ApprovalStatus.PENDING


# --- the tests ---------------------------------------------------------------------------------


@FUZZ
@given(text=st.one_of(texts(), commands()))
@example(text="x" * LONG)
@example(text="😀\u0301\u200f" * (LONG // 3))  # 2 UTF-16 units per emoji: 13,332 in all
@example(text="note: " + "ab " * 3331)
@example(text="remind me in 5 minutes to " + "stretch " * 1247)
@example(text="/tz " + "é" * (LONG - 4))
@example(text="/snooze abc123 " + "9" * (LONG - 15))
@example(text="/cancel " + "\u202e" * (LONG - 8))
@example(text="/a" * (LONG // 2))  # one unknown command of 10,000 characters
@example(text="\u0301")  # a lone combining mark
@example(text="\x00\x1b[2J")
async def test_any_text_from_a_user_gets_an_answer_within_limits(fuzzed: Fuzzed, text: str) -> None:
    assume(not OTHER_BOTS_COMMAND.match(text))  # "/x@other_bot" is rightly left alone
    fuzzed.api.send_text(ALICE, text)
    answered = await fuzzed.settle(ALICE)
    assert answered, f"no answer to {text!r}"
    fuzzed.check_outgoing()
    await _bob_is_untouched(fuzzed)


@FUZZ
@given(data=st.data())
async def test_any_button_data_gets_an_answer(fuzzed: Fuzzed, data: st.DataObject) -> None:
    pressed = data.draw(fuzzed.button_data(), label="button data")
    answer = await fuzzed.api.wait_for_answer(
        fuzzed.api.press(ALICE, fuzzed.alice_listing, pressed)
    )
    assert answer.text, f"an empty answer to {pressed!r}"
    await fuzzed.settle(ALICE)
    fuzzed.check_outgoing()
    await _bob_is_untouched(fuzzed)


@FUZZ
@given(data=st.data())
async def test_a_stranger_runs_nothing_and_stores_nothing(
    fuzzed: Fuzzed, data: st.DataObject
) -> None:
    kinds = st.sampled_from(["text", "command", "button"])
    before_rows = table_counts(fuzzed.bot.database)
    before_events, before_calls = len(fuzzed.bot.events), fuzzed.bot.tool_calls_counted()
    for kind in data.draw(st.lists(kinds, min_size=1, max_size=3), label="updates"):
        stranger = next(_STRANGERS)  # a new one each time: each gets its one visible refusal
        if kind == "button":
            pressed = data.draw(fuzzed.button_data(), label="button data")
            query = fuzzed.api.press(stranger, fuzzed.alice_listing, pressed)
            answer = await fuzzed.api.wait_for_answer(query)
            assert answer.show_alert and answer.text is not None
            assert answer.text.startswith("Sorry, this is a private assistant.")
            continue
        text = data.draw(texts() if kind == "text" else commands(), label=kind)
        fuzzed.api.send_text(stranger, text)
        [refusal] = await fuzzed.api.wait_for_messages(stranger, 1)
        assert refusal.text.startswith("Sorry, this is a private assistant.")
    fuzzed.check_outgoing()
    assert len(fuzzed.bot.events) == before_events
    assert fuzzed.bot.tool_calls_counted() == before_calls
    assert table_counts(fuzzed.bot.database) == before_rows
    await _bob_is_untouched(fuzzed)


@pytest.mark.parametrize("command", ["/cancel", "/tz", "/snooze abc123"])
async def test_a_long_bad_argument_gets_one_short_answer(fuzzed: Fuzzed, command: str) -> None:
    # 4,096 characters is the most a Telegram user can send in one message.
    fuzzed.api.send_text(ALICE, f"{command} " + "\u202e" * (4096 - len(command) - 1))
    answered = await fuzzed.settle(ALICE)
    fuzzed.check_outgoing()
    assert len(answered) == 1, f"{len(answered)} messages"


async def test_the_bot_still_answers_after_the_fuzzing(fuzzed: Fuzzed) -> None:
    [reply] = await fuzzed.bot.say(BOB, "remind me in 3 hours to stretch")
    assert "today at 16:00 (Europe/Berlin)" in reply
    fuzzed.check_outgoing()
