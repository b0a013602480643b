"""The shared slash commands and button actions, over the real manager, memory and agent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from interfaces import (
    Action,
    ActionKind,
    ActionOutcome,
    CommandReply,
    SlashCommands,
    run_history,
)
from tasks import RunStatus, TaskStatus, parse_schedule
from tests.interfaces.world import World, open_world

ALICE, BOB = "alice", "bob"


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with open_world(tmp_path) as opened:
        yield opened


async def ask(world: World, text: str, user: str = ALICE) -> CommandReply:
    reply = await world.commands.handle(text, user_id=user, chat_id=user)
    assert reply is not None, f"{text!r} was not taken as a command"
    return reply


async def press(
    world: World, kind: ActionKind, target: str, user: str = ALICE, arg: str = ""
) -> ActionOutcome:
    return await world.commands.press(Action(kind, target, arg), user_id=user, chat_id=user)


async def test_only_known_commands_are_taken(world: World) -> None:
    assert await world.commands.handle("hello", user_id=ALICE, chat_id=ALICE) is None
    assert await world.commands.handle("/nope", user_id=ALICE, chat_id=ALICE) is None
    assert (await ask(world, "/TASKS@assistant_test_bot")).text.startswith("You have no")


async def test_help_lists_every_command_and_names_an_unknown_one(world: World) -> None:
    text = (await ask(world, "/help")).text
    for spec in world.commands.specs:
        assert spec.usage in text
    assert "/tasks - Your scheduled tasks, with buttons" in text
    assert world.commands.help("/frobnicate").text.startswith("I don't know the command")


async def test_help_without_buttons_does_not_mention_them(world: World) -> None:
    commands = SlashCommands(
        tasks=world.manager, memory=world.memory, agent=world.agent, buttons=False
    )
    text = commands.help().text
    assert "/tasks - Your scheduled tasks\n" in text
    assert "button" not in text.lower()


async def test_the_first_zone_moves_the_tasks_made_under_the_default(world: World) -> None:
    utc = ZoneInfo("UTC")  # the world's default zone, which Alice never chose
    made = await world.manager.add_task(
        owner_id=ALICE, chat_id=ALICE, task_type="reminder",
        schedule=parse_schedule("tomorrow at 9am", now=world.clock.now(), tz=utc),
        execution_data={"message": "call mom"},
    )  # fmt: skip

    answer = (await ask(world, "/tz Europe/Berlin")).text
    moved = await world.manager.get_task(made.id, ALICE)
    again = (await ask(world, "/tz Asia/Tokyo")).text

    assert answer == (
        "Your time zone is now Europe/Berlin (it is 13:00 there). Your task made before keeps "
        "its clock time there: a reminder for 09:00 is at 09:00 Europe/Berlin now."
    )
    assert moved.schedule.describe() == "once at 2025-03-11 09:00 (Europe/Berlin)"
    # Only a first choice moves tasks: from then on a task keeps its moment.
    assert again == "Your time zone is now Asia/Tokyo (it is 21:00 there)."
    assert (await world.manager.get_task(made.id, ALICE)).schedule == moved.schedule


async def test_the_zone_is_asked_once_then_said_how_to_set_until_chosen(world: World) -> None:
    zones = world.commands.zones
    timed = "I'll remind you tomorrow at 09:00 (UTC) to call mom."

    first = await zones.note(ALICE, "Hello.")
    untimed = await zones.note(ALICE, "Hello.")
    hint = await zones.note(ALICE, timed)
    await ask(world, "/start", BOB)  # Bob is asked here, and not again on his first message
    started = await zones.note(BOB, "Hello.")
    await ask(world, "/tz Europe/Berlin")
    chosen = await zones.note(ALICE, "I'll remind you tomorrow at 09:00 (Europe/Berlin).")

    assert first is not None and first.startswith(
        "Which time zone are you in? Until you say, I use UTC for every time. Send /tz"
    )
    assert untimed is None
    assert hint == "(Times are in UTC until you set your zone: /tz Europe/Berlin, or yours.)"
    assert started is None
    assert chosen is None


async def test_start_asks_for_the_zone_until_it_is_set(world: World) -> None:
    assert "Which time zone are you in?" in (await ask(world, "/start")).text
    assert "'Mars/Olympus'" in (await ask(world, "/tz Mars/Olympus")).text
    answer = (await ask(world, "/tz Europe/Berlin")).text
    assert answer == "Your time zone is now Europe/Berlin (it is 13:00 there)."
    assert "Your time zone is Europe/Berlin" in (await ask(world, "/start")).text
    assert (await ask(world, "/tz")).text.startswith("Your time zone is Europe/Berlin.")


async def test_tasks_show_schedule_next_run_in_the_users_zone_and_buttons(world: World) -> None:
    await ask(world, "/tz America/New_York")
    first = await world.remind(ALICE, timedelta(minutes=5), "stretch")
    second = await world.remind(ALICE, timedelta(hours=1), "call mom")
    await world.remind(BOB, timedelta(minutes=1), "bob's secret")
    await world.manager.pause(second.id, ALICE)

    [listing] = (await ask(world, "/tasks")).replies
    assert "bob's secret" not in listing.text
    assert f"1. [{first.id}] reminder: stretch" in listing.text
    # Every time in the zone Alice set, New York; the task was made in Berlin.
    assert "once at 2025-03-10 08:05 (America/New_York)" in listing.text
    assert "next run: 2025-03-10 08:05" in listing.text
    assert "paused (paused by its owner)" in listing.text
    # Without buttons: one line per task, and the commands once below the list.
    assert listing.plain.splitlines() == [
        "Your tasks (times in America/New_York):",
        f"[{first.id}] reminder: stretch · today at 08:05 (America/New_York)",
        f"[{second.id}] reminder: call mom · once at 2025-03-10 09:00 (America/New_York) · "
        "paused (paused by its owner)",
        "Commands: /cancel ID, /pause ID, /resume ID, /run ID, /snooze ID 10m, /runs ID",
    ]
    labels = [[b.label for b in row] for row in listing.buttons]
    assert labels == [
        [f"Cancel {first.id}", f"Pause {first.id}", f"Run now {first.id}"],
        [f"Cancel {second.id}", f"Resume {second.id}", f"Run now {second.id}"],
    ]
    assert listing.buttons[1][1].action == Action(ActionKind.RESUME, second.id)


async def test_cancel_is_scoped_to_the_owner(world: World) -> None:
    task = await world.remind(BOB, timedelta(minutes=5))
    refused = (await ask(world, f"/cancel {task.id}")).text
    assert refused.startswith(f"There is no task {task.id!r}")
    assert (await world.manager.get_task(task.id, BOB)).status is TaskStatus.ACTIVE
    assert (await ask(world, f"/cancel {task.id}", BOB)).text == f"Cancelled [{task.id}] stretch."
    assert (await ask(world, "/cancel")).text.startswith("Say which task")


async def test_snooze_moves_the_next_run_and_reads_delays_and_times(world: World) -> None:
    await ask(world, "/tz Europe/Berlin")
    task = await world.remind(ALICE, timedelta(minutes=5))
    answer = (await ask(world, f"/snooze {task.id} 1h")).text
    assert answer == f'Snoozed task {task.id} ("stretch") until 2025-03-10 14:05 (Europe/Berlin).'
    assert (await ask(world, f"/snooze {task.id} soonish")).text.startswith(
        "Could not read 'soonish' as a delay or a time: did not understand 'soonish'; say e.g."
    )
    default = (await ask(world, f"/snooze {task.id}")).text
    assert default.endswith("until 2025-03-10 14:15 (Europe/Berlin).")
    until = (await ask(world, f"/snooze {task.id} until 5pm")).text
    assert until == f'Snoozed task {task.id} ("stretch") until 2025-03-10 17:00 (Europe/Berlin).'
    earlier = (await ask(world, f"/snooze {task.id} 4pm")).text
    assert "until 2025-03-10 16:00 (Europe/Berlin): its next run, 2025-03-10 17:00" in earlier
    assert f"'move {task.id} to 2025-03-10 16:00'" in earlier
    number = (await ask(world, f"/snooze {task.id} 10")).text
    assert number.startswith("'10' is a number alone; say '10 minutes', '10h' or 'until 10'")
    assert "a snooze puts off one run" in (await ask(world, f"/snooze {task.id} daily")).text
    assert (await world.manager.get_task(task.id, ALICE)).next_run == datetime(
        2025, 3, 10, 16, tzinfo=UTC
    )  # 17:00 in Berlin: the refusals changed nothing


async def test_snooze_reads_dates_in_the_users_order(world: World) -> None:
    await ask(world, "/tz Europe/Berlin")
    task = await world.remind(ALICE, timedelta(minutes=5))
    in_order = SlashCommands(
        tasks=world.manager, memory=world.memory, agent=world.agent, date_order="dmy"
    )
    assert await in_order.date_order(ALICE) == "dmy"  # the default, until Alice chooses

    by_default = await in_order.handle(f"/snooze {task.id} until 1/4", user_id=ALICE, chat_id=ALICE)
    await ask(world, "/dateorder mdy")
    chosen = await in_order.handle(f"/snooze {task.id} until 2/4", user_id=ALICE, chat_id=ALICE)

    assert by_default is not None and by_default.text.endswith(
        "until 2025-04-01 13:05 (Europe/Berlin)."  # 1 April, at the reminder's time
    )
    assert chosen is not None and chosen.text.endswith("until 2026-02-04 13:05 (Europe/Berlin).")


async def test_runs_lists_the_ledger(world: World) -> None:
    task = await world.remind(ALICE, timedelta(seconds=2))
    assert "has not run yet" in (await ask(world, f"/runs {task.id}")).text
    world.clock.advance(timedelta(seconds=2))
    assert await world.manager.run_due() == 1
    text = (await ask(world, f"/runs {task.id}")).text
    assert text.startswith(f"Runs of [{task.id}] stretch")
    assert "2025-03-10 12:00:02 · succeeded" in text
    assert (await ask(world, f"/runs {task.id}", BOB)).text.startswith("There is no task")


async def test_notes_lists_only_the_users_notes(world: World) -> None:
    assert "no notes yet" in (await ask(world, "/notes")).text
    await world.memory.add_note(ALICE, "the spare key is under the blue pot", ["home"])
    await world.memory.add_note(BOB, "bob's note")
    text = (await ask(world, "/notes")).text
    assert "- the spare key is under the blue pot [home] (2025-03-10)" in text
    assert "bob" not in text


async def test_tools_lists_the_tools_in_the_users_words(world: World) -> None:
    assert (await ask(world, "/tools")).text == (
        "The tools I can use for you (just ask in your own words):\n"
        "- add_reminder(seconds, message): Remind you after a number of seconds.\n"
        "- whoami(): Say what the interface told about you.\n"
        "- post(url): POST to a URL. Asks you first."
    )


async def test_new_starts_a_fresh_conversation(world: World) -> None:
    await world.agent.handle_message("hello", user_id=ALICE, chat_id=ALICE)
    assert await world.memory.load_conversation(ALICE, ALICE)
    assert "fresh conversation" in (await ask(world, "/new")).text
    assert not await world.memory.load_conversation(ALICE, ALICE)


async def test_task_buttons_act_and_refresh_the_list(world: World) -> None:
    task = await world.remind(ALICE, timedelta(minutes=5))
    paused = await press(world, ActionKind.PAUSE, task.id)
    # A notice names the task, not only its id.
    assert (paused.notice, paused.alert) == (f'Paused task {task.id} ("stretch").', False)
    assert paused.update is not None and f"Resume {task.id}" in str(paused.update.buttons)
    resumed = await press(world, ActionKind.RESUME, task.id)
    assert resumed.notice == f'Resumed task {task.id} ("stretch").'
    cancelled = await press(world, ActionKind.CANCEL, task.id)
    assert cancelled.notice == f'Cancelled task {task.id} ("stretch").'
    assert cancelled.update is not None and "no scheduled tasks" in cancelled.update.text
    other = await world.remind(ALICE, timedelta(hours=5), "water plants")
    ran = await press(world, ActionKind.RUN_NOW, other.id)
    assert ran.notice == (
        f'Ran task {other.id} ("water plants") now: succeeded (reminder delivered); it still '
        "fires today at 17:00 (UTC)."
    )
    assert (await world.manager.get_task(other.id, ALICE)).next_run == other.next_run
    [delivery] = world.recorded()
    assert delivery.text == "water plants"


async def test_run_again_runs_once_however_often_it_is_tapped(world: World) -> None:
    task = await world.remind(ALICE, timedelta(hours=5), "water plants")
    unknown = await world.manager.run_now(task.id, ALICE)  # the run the notice was about

    ran = await press(world, ActionKind.RUN_AGAIN, task.id, arg=str(unknown.id))
    tapped_twice = await press(world, ActionKind.RUN_AGAIN, task.id, arg=str(unknown.id))

    assert (ran.notice, ran.alert) == (
        f'Ran task {task.id} ("water plants") again: succeeded.',
        False,
    )
    assert ran.mark == f'▶️ Ran task {task.id} ("water plants") again: succeeded.'
    assert tapped_twice.alert and "has run since" in tapped_twice.notice
    assert [d.text for d in world.recorded()] == ["water plants"] * 2  # not three times
    assert len(await world.manager.history(task.id, ALICE)) == 2


async def test_runs_say_outcome_unknown_in_words(world: World) -> None:
    task = await world.remind(ALICE, timedelta(hours=5), "order pizza")
    run = await world.manager.run_now(task.id, ALICE)
    unknown = replace(run, status=RunStatus.OUTCOME_UNKNOWN, error="it may have acted")

    text = run_history(task, [unknown], ZoneInfo("Europe/Berlin"))

    assert "· outcome unknown · manual: it may have acted" in text


async def test_buttons_on_someone_elses_or_missing_tasks_are_refused(world: World) -> None:
    task = await world.remind(BOB, timedelta(minutes=5))
    kinds = (
        ActionKind.CANCEL, ActionKind.PAUSE, ActionKind.RUN_NOW, ActionKind.RUN_AGAIN,
        ActionKind.SNOOZE,
    )  # fmt: skip
    for kind in (*kinds, ActionKind.DONE):
        outcome = await press(world, kind, task.id, arg="10m")
        assert outcome.alert, kind
        assert task.id in outcome.notice
        # In a group the message shows the owner's list or reminder: a stranger's press
        # leaves it as it is.
        assert (outcome.update, outcome.mark) == (None, None), kind
    assert (await world.manager.get_task(task.id, BOB)).status is TaskStatus.ACTIVE
    again = await press(world, ActionKind.RESUME, task.id, BOB)
    assert again.alert and "resume" in again.notice.lower()


async def test_snooze_and_done_buttons_on_a_delivered_reminder(world: World) -> None:
    task = await world.remind(ALICE, timedelta(seconds=2))
    world.clock.advance(timedelta(seconds=2))
    await world.manager.run_due()
    assert (await world.manager.get_task(task.id, ALICE)).status is TaskStatus.DONE
    snoozed = await press(world, ActionKind.SNOOZE, task.id, arg="10m")
    assert not snoozed.alert and snoozed.mark is not None and snoozed.mark.startswith("💤")
    assert (await world.manager.get_task(task.id, ALICE)).status is TaskStatus.ACTIVE
    done = await press(world, ActionKind.DONE, task.id)
    assert (done.mark, done.alert) == ("✅ Done", False)


async def pending_post(world: World, url: str = "http://lights.lan/off") -> str:
    reply = await world.agent.handle_message(f"post {url}", user_id=ALICE, chat_id=ALICE)
    [request] = reply.approvals
    return request.id


async def test_approvals_lists_cards_with_exact_arguments(world: World) -> None:
    assert (await ask(world, "/approvals")).text == "Nothing is waiting for your approval."
    request_id = await pending_post(world)
    [card] = (await ask(world, "/approvals")).replies
    assert "Tool: post" in card.text
    assert "  url: http://lights.lan/off" in card.text  # plain words, no JSON
    assert "Risk: high." in card.text
    assert [b.action for b in card.buttons[0]] == [
        Action(ActionKind.APPROVE, request_id),
        Action(ActionKind.DENY, request_id),
    ]
    assert (await ask(world, "/approvals", BOB)).text == "Nothing is waiting for your approval."


async def test_only_the_asker_can_decide_and_only_once(world: World) -> None:
    request_id = await pending_post(world)
    stranger = await press(world, ActionKind.APPROVE, request_id, BOB)
    assert stranger.alert and stranger.mark is None and not stranger.follow_ups
    assert world.gadgets.posts == []

    approved = await press(world, ActionKind.APPROVE, request_id)
    assert (approved.notice, approved.mark, approved.alert) == ("Approved.", "✅ Approved", False)
    assert world.gadgets.posts == ["http://lights.lan/off"]
    [follow_up] = approved.follow_ups
    assert follow_up.text == "POST http://lights.lan/off -> 200"

    twice = await press(world, ActionKind.DENY, request_id)
    assert twice.alert and twice.notice == "This request was already approved."
    assert world.gadgets.posts == ["http://lights.lan/off"]


async def test_deny_runs_nothing_and_expired_requests_say_so(world: World) -> None:
    denied = await press(world, ActionKind.DENY, await pending_post(world))
    assert (denied.mark, denied.alert) == ("❌ Denied", False)
    late_id = await pending_post(world, "http://late.lan")
    world.clock.advance(timedelta(minutes=31))
    late = await press(world, ActionKind.APPROVE, late_id)
    assert late.alert and late.notice.startswith("This request expired")
    assert late.mark is not None and late.mark.startswith("⌛")
    assert world.gadgets.posts == []


async def test_dateorder_sets_how_the_user_reads_4_5(world: World) -> None:
    assert "the default (ASSISTANT_DATE_ORDER)" in (await ask(world, "/dateorder")).text
    assert "'ymd' is not a date order" in (await ask(world, "/dateorder ymd")).text
    assert (await ask(world, "/dateorder DMY")).text == "From now on 4/5 is 4 May (day first)."
    profile = await world.memory.get_user(ALICE)
    assert profile is not None and profile.settings["date_order"] == "dmy"
    assert "read with dmy" in (await ask(world, "/dateorder")).text
    other = await world.memory.get_user(BOB)
    assert other is None or "date_order" not in other.settings
