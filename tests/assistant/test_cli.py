"""The command line, end to end: real processes, a temporary data dir, the offline planner."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from interfaces import TaskOut
from tests.agent.llm.real_models import smollm2_path


def run(
    *args: str,
    data_dir: Path,
    zone: str = "America/New_York",
    check: bool = True,
    typed: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``assistant ARGS`` in a fresh process; ``typed`` is piped to its standard input;
    ``env`` adds variables to the bare environment it runs in."""
    variables = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(data_dir),
        "ASSISTANT_DATA_DIR": str(data_dir),
        "ASSISTANT_TIMEZONE": zone,
        **(env or {}),
    }
    done = subprocess.run(
        [sys.executable, "-m", "assistant.cli", *args],
        input=typed,
        capture_output=True,
        text=True,
        env=variables,
        cwd=data_dir,
        timeout=60,
        check=False,
    )
    if check and done.returncode != 0:
        raise AssertionError(
            f"exit {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
        )
    return done


def test_schedule_preview_as_json(tmp_path: Path) -> None:
    done = run(
        "schedule", "30 2 * * *", "--tz", "Europe/Berlin", "--now", "2026-10-24T12:00",
        "--count", "3", "--json", data_dir=tmp_path,
    )  # fmt: skip
    preview = json.loads(done.stdout)
    assert preview["kind"] == "recurring"
    # Fall-back night: 02:30 happens twice and fires once, at its first occurrence.
    assert preview["next"] == [
        "2026-10-25T02:30:00+02:00",
        "2026-10-26T02:30:00+01:00",
        "2026-10-27T02:30:00+01:00",
    ]


def test_schedule_refusal_exits_2_with_the_message_on_stderr(tmp_path: Path) -> None:
    done = run("schedule", "whenever you like", data_dir=tmp_path, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "whenever you like" in done.stderr
    assert "e.g." in done.stderr


def test_invalid_setting_is_named(tmp_path: Path) -> None:
    done = run("tasks", data_dir=tmp_path, zone="Nowhere/Land", check=False)
    assert done.returncode == 2
    assert "ASSISTANT_TIMEZONE" in done.stderr
    assert "Traceback" not in done.stderr


def tasks_json(data_dir: Path) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = json.loads(run("tasks", "--json", data_dir=data_dir).stdout)
    return listed


def test_reminder_is_created_listed_in_the_users_zone_and_cancelled(tmp_path: Path) -> None:
    done = run("ask", "remind me tomorrow at 9am to water the plants", data_dir=tmp_path)
    assert "09:00" in done.stdout
    assert "America/New_York" in done.stdout
    assert "(Scheduled tasks fire while `assistant chat` or `assistant serve` runs.)" in done.stdout

    [task] = tasks_json(tmp_path)
    assert set(task) == set(TaskOut.model_fields)  # the HTTP API's shape (GET /tasks)
    assert task["type"] == "reminder"
    assert task["description"] == "water the plants"
    assert task["status"] == "active"
    assert task["next_run"].endswith(("-05:00", "-04:00"))
    assert task["next_run"][11:19] == "09:00:00"
    assert "09:00 (America/New_York)" in task["next_run_text"]

    cancelled = run("ask", f"cancel {task['id']}", data_dir=tmp_path)
    assert task["id"] in cancelled.stdout
    assert tasks_json(tmp_path) == []


def test_note_is_saved_and_recalled(tmp_path: Path) -> None:
    run("ask", "note: the wifi password is hunter2", data_dir=tmp_path)
    done = run("ask", "what is my wifi password?", data_dir=tmp_path)
    assert "hunter2" in done.stdout


def test_nonsense_gets_help_and_schedules_nothing(tmp_path: Path) -> None:
    done = run("ask", "--json", "purple monkey dishwasher", data_dir=tmp_path)
    reply = json.loads(done.stdout)
    assert reply["tools"] == []
    assert "remind me" in reply["reply"].lower()
    assert tasks_json(tmp_path) == []


def test_tasks_and_runs_show_times_in_the_zone_the_user_chose(tmp_path: Path) -> None:
    # Made in the default zone (New York), which the user never chose: the first /tz moves
    # them to the same clock times there (the day after tomorrow, so on the real clock 09:00
    # in Tokyo has not passed either).
    run("ask", "remind me the day after tomorrow at 9am to water the plants", data_dir=tmp_path)
    run("ask", "every day at 8am remind me to stretch", data_dir=tmp_path)
    daily = next(t for t in tasks_json(tmp_path) if t["description"] == "stretch")
    chat = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "chat"],
        input=f"/tz Asia/Tokyo\n/run {daily['id']}\n",
        capture_output=True,
        text=True,
        env={
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(tmp_path),
            "ASSISTANT_DATA_DIR": str(tmp_path),
            "ASSISTANT_TIMEZONE": "America/New_York",
        },
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert "Your time zone is now Asia/Tokyo" in chat.stdout, chat.stderr
    assert f'Ran task {daily["id"]} ("stretch") now: succeeded' in chat.stdout
    assert "Your tasks" not in chat.stdout  # /run shows the run, not the list
    [ran] = json.loads(run("runs", daily["id"], "--json", data_dir=tmp_path).stdout)
    assert ran["scheduled_for"].endswith("+09:00")
    tasks = {t["description"]: t for t in tasks_json(tmp_path)}
    assert all(t["next_run"].endswith("+09:00") for t in tasks.values())
    assert re.fullmatch(r"once at \S+ 09:00 \(Asia/Tokyo\)", tasks["water the plants"]["schedule"])
    assert tasks["stretch"]["schedule"] == "every day at 08:00 (Asia/Tokyo)"
    # The listing says next runs in Tokyo's time (this test runs on the real clock, so the
    # day words are left open).
    listed = run("tasks", data_dir=tmp_path).stdout
    assert re.search(r"water the plants · .*at 09:00 \(Asia/Tokyo\)", listed), listed
    assert re.search(
        r"stretch · every day at 08:00 \(Asia/Tokyo\) · next .*at 08:00 \(Asia/Tokyo\)",
        listed,
    ), listed


def test_the_terminal_asks_the_zone_once_and_the_first_tz_keeps_clock_times(
    tmp_path: Path,
) -> None:
    typed = [
        "remind me the day after tomorrow at 9am to call mom",
        "remind me the day after tomorrow at 10am to stretch",
        "/tz Asia/Tokyo",
        "remind me the day after tomorrow at 11am to water the plants",
        "/tasks",
    ]
    chat = run("chat", data_dir=tmp_path, typed="\n".join(typed) + "\n")

    shown = chat.stdout
    asked = shown.index("Which time zone are you in? Until you say, I use America/New_York")
    hinted = shown.index("(Times are in America/New_York until you set your zone: /tz")
    chosen = shown.index("Your time zone is now Asia/Tokyo")
    assert shown.index("to call mom") < asked < shown.index("to stretch") < hinted < chosen
    assert shown.count("Which time zone") == 1 and shown.count("(Times are in") == 1
    assert "Your 2 tasks made before keep their clock times there" in shown
    assert re.search(r"call mom · .*at 09:00 \(Asia/Tokyo\)", shown), shown
    assert re.search(r"water the plants · .*at 11:00 \(Asia/Tokyo\)", shown), shown


def test_cancel_and_runs_commands(tmp_path: Path) -> None:
    run("ask", "every weekday at 8:30 remind me to check the mail", data_dir=tmp_path)
    [task] = tasks_json(tmp_path)
    assert task["schedule"].startswith("every weekday at 08:30")
    runs = run("runs", task["id"], "--json", data_dir=tmp_path)
    assert json.loads(runs.stdout) == []
    missing = run("cancel", "zzzzzz", data_dir=tmp_path, check=False)
    assert missing.returncode == 1
    assert "zzzzzz" in missing.stderr
    assert run("cancel", task["id"], data_dir=tmp_path).returncode == 0
    assert tasks_json(tmp_path) == []


@pytest.mark.parametrize("fmt", ["markdown", "json", "openai"])
def test_tools_catalog_in_every_format(tmp_path: Path, fmt: str) -> None:
    done = run("tools", "--format", fmt, data_dir=tmp_path)
    assert "add_reminder" in done.stdout
    assert "search_web" in done.stdout
    if fmt != "markdown":
        json.loads(done.stdout)
    if fmt == "openai":
        assert {t["type"] for t in json.loads(done.stdout)} == {"function"}


def test_chat_reads_piped_lines_and_answers_slash_commands(tmp_path: Path) -> None:
    done = run(
        "chat",
        data_dir=tmp_path,
        zone="Europe/Berlin",
        typed="remind me in 10 minutes to check the oven\n/tasks\n/help\n",
    )
    assert "to check the oven" in done.stdout
    assert "(Europe/Berlin)" in done.stdout
    assert "/snooze ID" in done.stdout  # the help lists the commands
    assert "Unknown command" not in done.stdout


def test_ask_answers_slash_commands_as_the_terminal_chat_does(tmp_path: Path) -> None:
    quiet = run("ask", "/quiet 22:00-07:00", data_dir=tmp_path, zone="Europe/Berlin")
    assert quiet.stdout.startswith("Quiet hours: from 22:00 to 07:00 (Europe/Berlin).")
    shown = run("ask", "--json", "/quiet", data_dir=tmp_path, zone="Europe/Berlin")
    assert json.loads(shown.stdout)["reply"] == (
        "Your quiet hours: from 22:00 to 07:00 (Europe/Berlin); /quiet off ends them."
    )
    later = run("ask", "/later 1 10m", data_dir=tmp_path)
    assert later.stdout == (
        "/later names a message the chat printed, so it works in `assistant chat`, not in one "
        "`assistant ask`; run `assistant chat` and type it there.\n"
    )
    assert tasks_json(tmp_path) == []  # nothing was taken for a reminder


def test_ask_says_how_to_decide_a_pending_approval(tmp_path: Path) -> None:
    done = run("ask", "--json", "at 1am daily POST http://home.lan/lights/off", data_dir=tmp_path)
    reply = json.loads(done.stdout)
    [request] = reply["approvals"]
    assert request["tool"] == "add_recurring_task"
    assert f"/approve {request['id']}" in reply["note"]
    assert tasks_json(tmp_path) == []


def test_ask_exits_3_with_one_message_when_the_model_cannot_answer(tmp_path: Path) -> None:
    unreachable = {"ASSISTANT_LLM_BASE_URL": "http://127.0.0.1:9/v1"}
    said = "write a haiku about the sea"  # nothing the planner does itself
    done = run("ask", said, data_dir=tmp_path, check=False, env=unreachable)

    assert done.returncode == 3
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("error: Sorry, I could not get an answer from the language model")
    assert "ASSISTANT_LLM_BASE_URL" in line

    as_json = run("ask", "--json", said, data_dir=tmp_path, check=False, env=unreachable)
    assert as_json.returncode == 3
    assert json.loads(as_json.stdout)["failed"] is True
    assert as_json.stderr == ""


def test_ask_names_the_commands_that_fire_the_terminals_tasks(tmp_path: Path) -> None:
    # `assistant telegram` and `assistant web` fire their own chats', not the terminal's.
    done = run("ask", "remind me in 10 minutes to stretch", data_dir=tmp_path)

    assert "`assistant chat` or `assistant serve`" in done.stdout
    assert "`assistant web`" not in done.stdout and "`assistant telegram`" not in done.stdout


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    run("ask", "note: fine", data_dir=tmp_path)
    read, write = os.pipe()
    os.close(read)  # as `| head -2` once it has its lines
    try:
        done = subprocess.run(
            [sys.executable, "-m", "assistant.cli", "doctor"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            env={"PATH": os.environ.get("PATH", ""), "ASSISTANT_DATA_DIR": str(tmp_path)},
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)

    assert done.returncode == 141
    assert done.stderr == ""


def test_the_doctor_counts_a_backup_made_on_demand(tmp_path: Path) -> None:
    run("ask", "note: fine", data_dir=tmp_path)
    before = run("doctor", data_dir=tmp_path).stdout
    run("backup", data_dir=tmp_path)
    after = run("doctor", data_dir=tmp_path).stdout

    assert "no backup in" in before and "`assistant web`" in before
    assert "0 daily and 1 manual backup(s), the newest" in after
    assert "no backup" not in after


def test_the_doctor_says_what_the_task_store_holds_and_what_retention_keeps(
    tmp_path: Path,
) -> None:
    run("ask", "remind me in 5 minutes to call mom", data_dir=tmp_path)
    run("ask", "remind me every day at 9am to stretch", data_dir=tmp_path)
    kept = {"ASSISTANT_LEDGER_KEEP_DAYS": "2", "ASSISTANT_FINISHED_KEEP_DAYS": "30"}
    doctor = run("doctor", data_dir=tmp_path, env=kept).stdout

    assert "tasks: 2 live, 0 finished; run ledger: 0 rows in full, 0 task summaries" in doctor
    assert "ok       schemas: memory version " in doctor
    assert ", proactive version 1, tasks version " in doctor
    assert "ledger rows older than 2 days are folded into their task's summary" in doctor
    assert "finished tasks (done, cancelled) are removed 30 days after their last run" in doctor


def test_web_without_tokens_refuses_another_host_naming_it_and_a_bad_port(
    tmp_path: Path,
) -> None:
    open_to_all = run("web", "--host", "0.0.0.0", "--port", "0", data_dir=tmp_path, check=False)
    no_port = run("web", "--port", "70000", data_dir=tmp_path, check=False)

    assert open_to_all.returncode == 2
    assert "anyone who reaches 0.0.0.0 could act as you" in open_to_all.stderr
    assert ":0" not in open_to_all.stderr
    assert no_port.returncode == 2
    assert "'70000' is not a port: use 1 to 65535, or 0 for any free one" in no_port.stderr


def test_ask_loads_no_heavy_module_a_turn_on_the_offline_planner_does_not_use(
    tmp_path: Path,
) -> None:
    # The start-up time of `assistant ask` is mostly imports (docs/benchmarks.md). Collection,
    # paused while the command starts, is on again once it ran.
    code = (
        "import gc, sys; from assistant.cli import main; main(['ask', 'what time is it?']); "
        "print(sorted(m for m in ('bs4', 'telegram', 'prompt_toolkit', 'icalendar', 'caldav', "
        "'recurring_ical_events') if m in sys.modules), "
        "gc.isenabled())"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "ASSISTANT_DATA_DIR": str(tmp_path),
        "ASSISTANT_TIMEZONE": "UTC",
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=True,
    )  # fmt: skip

    assert done.stdout.splitlines()[-1] == "[] True", done.stdout


def test_ask_that_the_planner_completes_never_loads_the_model(tmp_path: Path) -> None:
    # With a model configured, a request the planner understands completely is done without
    # it: llama.cpp is not even imported, so `ask` is as fast as with no model at all.
    code = (
        "import sys; from assistant.cli import main; "
        "main(['ask', 'remind me in 10 minutes to check the oven']); "
        "print('llama_cpp' in sys.modules)"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "ASSISTANT_DATA_DIR": str(tmp_path),
        "ASSISTANT_TIMEZONE": "UTC",
        "ASSISTANT_LLM_MODEL_PATH": smollm2_path(),
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=True,
    )  # fmt: skip

    *said, loaded = done.stdout.splitlines()
    assert "I'll remind you today at" in " ".join(said)
    assert loaded == "False"


BOT_TOKEN = "123456789:AAEabcdefghijklmnopqrstuvwxyz0123456"


def test_the_bot_token_never_shows_in_debug_logs(tmp_path: Path) -> None:
    # telegram.Bot logs "Set Bot API URL: <base>/bot<token>" at DEBUG; the Bot API here is a
    # closed port, so the bot stops right after.
    done = run(
        "telegram", data_dir=tmp_path, check=False,
        env={"TELEGRAM_BOT_TOKEN": BOT_TOKEN, "TELEGRAM_BASE_URL": "http://127.0.0.1:9/bot",
             "ASSISTANT_LOG_LEVEL": "DEBUG"},
    )  # fmt: skip

    assert "Set Bot API URL: http://127.0.0.1:9/bot[redacted]" in done.stderr
    assert BOT_TOKEN not in done.stdout + done.stderr
    assert BOT_TOKEN.split(":")[1] not in done.stdout + done.stderr


@pytest.mark.parametrize("url", ["http://xn--localhost/", "http://xn--/", "http://[::1/"])
def test_an_invalid_url_is_a_clear_tool_error_not_a_traceback(tmp_path: Path, url: str) -> None:
    done = run("ask", f"GET {url}", data_dir=tmp_path, check=False)

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "invalid URL" in done.stdout


def test_text_from_others_reaches_the_terminal_without_control_sequences(tmp_path: Path) -> None:
    hostile = "check\x1b]0;pwned\x07 the \x1b[2Joven\x9b2J"
    made = run("ask", f"remind me in 10 minutes to {hostile}", data_dir=tmp_path)
    listed = run("tasks", data_dir=tmp_path)
    as_json = run("tasks", "--json", data_dir=tmp_path)

    for shown in (made.stdout, listed.stdout, as_json.stdout):
        for control in ("\x1b", "\x07", "\x9b"):
            assert control not in shown
    assert "reminder: check the oven" in listed.stdout
    (row,) = json.loads(as_json.stdout)
    assert "\x1b" in row["description"]  # the data is kept as it was given


def test_ask_json_keeps_stdout_for_the_json_whatever_native_code_prints(tmp_path: Path) -> None:
    # A custom tool module stands in for native code (llama.cpp) writing to descriptor 1.
    folder = tmp_path / "custom_tools"
    folder.mkdir()
    (folder / "noisy.py").write_text(
        "import os\nos.write(1, b'llama_noise: written past sys.stdout\\n')\n", encoding="utf-8"
    )

    done = run("ask", "--json", "remind me in 5 minutes to stretch", data_dir=tmp_path)

    assert json.loads(done.stdout)["tools"][0]["tool"] == "add_reminder"
    assert "llama_noise" in done.stderr


CALENDARS = Path(__file__).parent.parent / "calendars" / "files"


def test_export_ics_writes_the_tasks_as_a_private_calendar_file(tmp_path: Path) -> None:
    run("ask", "remind me every other friday at 5pm to pay the babysitter", data_dir=tmp_path)
    target = tmp_path / "tasks.ics"
    said = run("export-ics", str(target), data_dir=tmp_path).stdout
    assert said == f"Wrote 1 event to {target}\n"
    assert target.stat().st_mode & 0o777 == 0o600
    text = target.read_text()
    assert "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=FR" in text and "SUMMARY:pay the babysitter" in text
    assert "BEGIN:VTIMEZONE\nTZID:America/New_York" in text  # read_text: lines end in "\\n"
    printed = run("export-ics", data_dir=tmp_path).stdout
    assert printed.startswith("BEGIN:VCALENDAR") and "pay the babysitter" in printed


def test_import_ics_shows_what_it_makes_and_makes_it_only_when_told(tmp_path: Path) -> None:
    source = str(CALENDARS / "outlook.ics")
    waiting = run("import-ics", source, data_dir=tmp_path, check=False)
    assert waiting.returncode == 4
    assert waiting.stdout.startswith("2 reminders will be made:")
    assert "'Month-end close': RRULE 'FREQ=MONTHLY;BYMONTHDAY=31'" in waiting.stdout
    assert "Nothing was made: run it at a terminal, or with --yes." in waiting.stderr
    assert "No active tasks." in run("tasks", data_dir=tmp_path).stdout
    made = run("import-ics", source, "--yes", data_dir=tmp_path).stdout
    assert re.search(r"Made 2 reminders: \w{6}, \w{6}\.", made)
    listed = run("tasks", data_dir=tmp_path).stdout
    assert "Timesheets due" in listed and "Call the family" in listed
    again = run("import-ics", source, "--yes", data_dir=tmp_path).stdout
    assert "No reminders will be made." in again and "already a task" in again


@pytest.mark.parametrize(
    ("source", "said", "status"),
    [
        ("missing.ics", "cannot read missing.ics", 2),
        ("http://127.0.0.1:9/x.ics", "127.0.0.1 is a loopback address", 1),
        ("webcal://", "is not a calendar's web address", 2),
        ("ftp://x/y.ics", "'ftp://x/y.ics' is a ftp:// address; calendars are read from", 2),
    ],
)
def test_import_ics_of_what_cannot_be_read_says_why(
    tmp_path: Path, source: str, said: str, status: int
) -> None:
    done = run("import-ics", source, data_dir=tmp_path, check=False)
    assert done.returncode == status and said in done.stderr


BROKEN = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:d-1\r\n"
    "SUMMARY:Dentist\r\n{lines}\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\n"
    "END:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            BROKEN.format(lines="DTSTART:notadate"),
            "the event 'Dentist' (UID d-1): its DTSTART 'notadate' is not a date or date-time",
        ),
        (
            BROKEN.format(lines="DTSTART:20301101T090000Z\r\nRRULE:FREQ=DAILY\r\nEXDATE:garbage"),
            "the event 'Dentist' (UID d-1): its EXDATE 'garbage' is not a date or date-time",
        ),
        ("", "the calendar file is empty"),
    ],
)
def test_import_ics_of_a_malformed_file_names_the_event_and_property(
    tmp_path: Path, content: str, said: str
) -> None:
    source = tmp_path / "broken.ics"
    source.write_text(content)
    done = run("import-ics", str(source), "--yes", data_dir=tmp_path, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1].startswith("error: ") and said in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("nowhere/tasks.ics", "the folder {tmp}/nowhere does not exist; create it first"),
        (".", "{tmp} is a folder; give the file's name in it"),
    ],
)
def test_export_ics_to_a_place_it_cannot_write_says_what_to_do(
    tmp_path: Path, target: str, said: str
) -> None:
    done = run("export-ics", str((tmp_path / target).resolve()), data_dir=tmp_path, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert said.format(tmp=tmp_path.resolve()) in done.stderr and "Errno" not in done.stderr
