"""Load: 100 users chatting at once through Telegram (the Bot API stand-in), reminders firing.

Run with ``.venv/bin/python -m bench.load`` from the repository root (``--help`` for flags).
The whole assistant is built by its composition root (``open_app``: SQLite, the offline
planner, the builtin tools, the scheduler on real time) behind the real Telegram bot
(python-telegram-bot polling the stand-in on 127.0.0.1). Each simulated user sends its
messages one after another, waiting for each reply; one of them sets a reminder a few seconds
ahead, which fires while the others still chat. Prints messages per second, reply latency
p50/p99/max, lost replies and reminders, and the peak RSS of this process (bot, app and
stand-in together). By default the bot paces its sends like Telegram demands (30 messages/s
overall, 1/s per chat); ``--unpaced`` lifts that to show the assistant's own capacity.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assistant.app import open_app
from assistant.config import Settings
from bench.chat_monitor import ChatMonitor
from interfaces.telegram import RateLimits, TelegramInterface, TelegramNotifier
from testing.botapi_standin import BotApiStandin

FIRST_USER = 10_001
REPLY_WITHIN = 60.0
UNPACED = RateLimits(overall_per_second=100_000, per_chat_per_second=10_000, per_chat_burst=1000)


@dataclass(frozen=True, slots=True)
class LoadPlan:
    """What the load run does.

    Attributes:
        users: Simulated users chatting at the same time.
        messages: Messages each user sends (one sets a reminder).
        reminder_delay: The range of seconds ahead the reminders are set.
        paced: Whether the bot paces sends like Telegram demands.
        seed: Seeds each user's choice of messages and reminder delay.
    """

    users: int = 100
    messages: int = 6
    reminder_delay: tuple[int, int] = (3, 12)
    paced: bool = True
    seed: int = 7


@dataclass
class LoadReport:
    """What the load run measured."""

    plan: LoadPlan
    latencies_ms: list[float] = field(default_factory=list)
    lost_replies: int = 0
    extra_replies: int = 0
    reminders_set: int = 0
    reminders_delivered: int = 0
    duplicate_reminders: int = 0
    chat_seconds: float = 0.0
    peak_rss_mb: float = 0.0

    @property
    def sent(self) -> int:
        """Messages the users sent."""
        return self.plan.users * self.plan.messages

    def figures(self) -> dict[str, str]:
        """Return label -> value text, in display order."""
        ordered = sorted(self.latencies_ms) or [0.0]
        p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)) - 1)]
        lost_reminders = self.reminders_set - self.reminders_delivered
        return {
            "users / messages": f"{self.plan.users} / {self.sent}",
            "messages per second": f"{self.sent / max(self.chat_seconds, 1e-9):.1f}",
            "reply latency p50 / p99 / max": (
                f"{statistics.median(ordered):.0f} / {p99:.0f} / {ordered[-1]:.0f} ms"
            ),
            "lost replies / extra replies": f"{self.lost_replies} / {self.extra_replies}",
            "reminders set / delivered / lost / duplicated": (
                f"{self.reminders_set} / {self.reminders_delivered} / {lost_reminders} / "
                f"{self.duplicate_reminders}"
            ),
            "peak RSS (bot + app + stand-in)": f"{self.peak_rss_mb:.0f} MB",
        }

    def problems(self) -> list[str]:
        """Return what was lost or duplicated (empty when nothing was)."""
        found = []
        if self.lost_replies:
            found.append(f"{self.lost_replies} messages got no reply within {REPLY_WITHIN:g} s")
        if self.reminders_delivered < self.reminders_set:
            found.append(f"{self.reminders_set - self.reminders_delivered} reminders never came")
        if self.duplicate_reminders:
            found.append(f"{self.duplicate_reminders} reminders came more than once")
        return found


def user_script(user: int, plan: LoadPlan, rng: random.Random) -> tuple[list[str], str]:
    """Return a user's messages (the reminder among them) and the reminder's text."""
    topic = f"stretch, user {user}"
    delay = rng.randint(*plan.reminder_delay)
    chatter = [
        "what time is it?",
        f"note: user {user} prefers green tea",
        "what are my tasks?",
        "what did I say about green tea?",
        "hello there",
        "what can you do?",
    ]
    messages = [rng.choice(chatter) for _ in range(max(0, plan.messages - 1))]
    messages.insert(rng.randrange(len(messages) + 1), f"remind me in {delay} seconds to {topic}")
    return messages, topic


async def chat_as(
    user: int, messages: Sequence[str], api: BotApiStandin, monitor: ChatMonitor
) -> tuple[list[float], int, int]:
    """Send ``messages`` one by one, each after the previous reply.

    Returns:
        The reply latencies (ms), how many got no reply, and how many reminders were confirmed.
    """
    latencies: list[float] = []
    lost = confirmed = 0
    for text in messages:
        began = time.perf_counter()
        api.send_text(user, text)
        reply = await monitor.next_reply(user, within=REPLY_WITHIN)
        if reply is None:
            lost += 1
            continue
        latencies.append((reply.at - began) * 1000)
        if text.startswith("remind me") and "remind you" in reply.text:
            confirmed += 1
    return latencies, lost, confirmed


async def run_load(plan: LoadPlan, data_dir: Path) -> LoadReport:
    """Run the plan against the composed assistant behind the Telegram bot."""
    report = LoadReport(plan)
    rng = random.Random(plan.seed)
    users = list(range(FIRST_USER, FIRST_USER + plan.users))
    scripts = {user: user_script(user, plan, rng) for user in users}
    settings = Settings.model_validate(
        {"ASSISTANT_DATA_DIR": str(data_dir), "ASSISTANT_TIMEZONE": "UTC"}
    )
    async with BotApiStandin() as api:
        notifier = TelegramNotifier.create(
            token=api.token, base_url=api.base_url, limits=None if plan.paced else UNPACED
        )
        async with open_app(settings, notifier=notifier, run_scheduler=True) as app:
            bot = TelegramInterface(
                token=api.token,
                base_url=api.base_url,
                allowed_users=users,
                agent=app.agent,
                tasks=app.tasks,
                memory=app.memory,
                notifier=notifier,
                poll_timeout=1.0,
            )
            async with bot:
                monitor = ChatMonitor(api)
                watcher = asyncio.create_task(monitor.watch())
                try:
                    await _chat_and_wait(report, plan, scripts, api, monitor)
                finally:
                    watcher.cancel()
                report.extra_replies = monitor.unclaimed_replies()
                _count_reminders(report, scripts, monitor)
    report.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return report


async def _chat_and_wait(
    report: LoadReport,
    plan: LoadPlan,
    scripts: dict[int, tuple[list[str], str]],
    api: BotApiStandin,
    monitor: ChatMonitor,
) -> None:
    began = time.perf_counter()
    results = await asyncio.gather(
        *(chat_as(user, messages, api, monitor) for user, (messages, _) in scripts.items())
    )
    report.chat_seconds = time.perf_counter() - began
    for latencies, lost, confirmed in results:
        report.latencies_ms += latencies
        report.lost_replies += lost
        report.reminders_set += confirmed
    # Every reminder is due at most reminder_delay[1] s after the chat ended; allow for pacing.
    deadline = time.perf_counter() + plan.reminder_delay[1] + 30.0
    while time.perf_counter() < deadline:
        if sum(1 for user in scripts if monitor.reminders.get(user)) >= report.reminders_set:
            break
        await asyncio.sleep(0.05)
    # A duplicate would arrive right behind the first delivery; give it a moment to show.
    await asyncio.sleep(1.0)


def _count_reminders(
    report: LoadReport, scripts: dict[int, tuple[list[str], str]], monitor: ChatMonitor
) -> None:
    for user, (_, topic) in scripts.items():
        arrived = [a for a in monitor.reminders.get(user, []) if topic in a.text]
        report.reminders_delivered += min(1, len(arrived))
        report.duplicate_reminders += max(0, len(arrived) - 1)


def render(report: LoadReport) -> str:
    """Return the figures and problems as printable text."""
    figures = report.figures()
    width = max(len(label) for label in figures)
    rows = [f"  {label:<{width}}  {value}" for label, value in figures.items()]
    problems = report.problems()
    rows.append("  result: " + ("nothing lost" if not problems else "FAILED"))
    rows += [f"  - {problem}" for problem in problems]
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the flags, run the load, print the figures; exit 1 when anything was lost."""
    defaults = LoadPlan()
    parser = argparse.ArgumentParser(prog="bench.load", description=__doc__)
    parser.add_argument("--users", type=int, default=defaults.users)
    parser.add_argument("--messages", type=int, default=defaults.messages)
    parser.add_argument("--unpaced", action="store_true", help="lift Telegram's send pacing")
    args = parser.parse_args(argv)
    if args.users < 1 or args.messages < 1:
        parser.error(f"--users ({args.users!r}) and --messages ({args.messages!r}) must be >= 1")
    # python-telegram-bot warns about its timedelta periods unless this opt-in is set.
    os.environ.setdefault("PTB_TIMEDELTA", "true")
    plan = LoadPlan(users=args.users, messages=args.messages, paced=not args.unpaced)
    pacing = "Telegram pacing (30/s overall, 1/s per chat)" if plan.paced else "pacing lifted"
    print(f"load: {plan.users} users x {plan.messages} messages, offline planner, {pacing}")
    with tempfile.TemporaryDirectory(prefix="assistant-load-") as tmp:
        report = asyncio.run(run_load(plan, Path(tmp)))
    print(render(report), flush=True)
    return 1 if report.problems() else 0


if __name__ == "__main__":
    sys.exit(main())
