"""``assistant doctor``: what is wrong with the data directory and its database, and what to do.

It reads, never changes: the directory's and files' modes, the database file itself, SQLite's
full ``integrity_check``, every stored text value (a damaged page can leave text that is not
UTF-8 while ``quick_check`` still says ok: such rows are skipped when read, and listed here),
the age of the newest backup (daily, or made by ``assistant backup``), and how much the task
store holds beside what retention keeps of it (``ASSISTANT_LEDGER_KEEP_DAYS``,
``ASSISTANT_FINISHED_KEEP_DAYS``).

With ``ASSISTANT_DATABASE_URL`` the stores live in PostgreSQL instead (``examine_postgres``):
the doctor checks that the server answers and which schema versions it holds, names a SQLite
file left behind by ``assistant migrate`` as no longer used, and says that backing up the
database is the server's business (``pg_dump``), not the assistant's.
"""

from __future__ import annotations

import asyncio
import sqlite3
import stat
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from assistant.backup import backups_of, daily_backups, manual_backups
from assistant.config import SCHEDULER_COMMANDS
from assistant.datadir import DataError, check_database
from common import PgConnection, PostgresDatabase, PostgresFailures
from tasks import LedgerPolicy, StoreSizes, read_postgres_sizes, read_sqlite_sizes

MAX_LISTED = 10


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the doctor looked at.

    Attributes:
        ok: Whether it is as it should be.
        what: What was found.
        todo: What to do about it ("" when nothing).
    """

    ok: bool
    what: str
    todo: str = ""


def examine(
    data_dir: Path, database: Path, *, today: date, retention: LedgerPolicy | None = None
) -> list[Finding]:
    """Look at the data directory and its database; return what was found, in order
    (with ``retention``, what the scheduler keeps, after the store's sizes)."""
    findings = [_modes(data_dir)]
    try:
        check_database(database)
    except DataError as exc:
        return [*findings, Finding(False, str(exc))]
    if not database.exists():
        return [*findings, Finding(True, f"no database yet at {database} (created on first use)")]
    try:
        findings += _database(database)
        findings.append(_sqlite_sizes(database))
    except sqlite3.Error as exc:
        findings.append(
            Finding(
                False,
                f"SQLite cannot read {database}: {exc}",
                "restore a backup (see below), or move the file away to start afresh",
            )
        )
    if retention is not None:
        findings.append(_retention(retention))
    findings.append(_backups(data_dir, today))
    return findings


def examine_postgres(
    data_dir: Path, database: Path, url: str, *, retention: LedgerPolicy | None = None
) -> list[Finding]:
    """Look at the data directory and the PostgreSQL database every store uses (the one
    connection runs in an event loop of its own: this is a command's whole work)."""
    findings = [_modes(data_dir), *asyncio.run(_postgres(url))]
    if retention is not None:
        findings.append(_retention(retention))
    if database.exists():
        findings.append(
            Finding(
                True,
                f"{database} is not used: ASSISTANT_DATABASE_URL puts every store in PostgreSQL "
                "(keep the file as the copy from before `assistant migrate`, or remove it)",
            )
        )
    findings.append(
        Finding(
            True,
            "backups of a PostgreSQL database are the server's, not the assistant's: e.g. "
            'pg_dump --format=custom --file=assistant.dump "$ASSISTANT_DATABASE_URL"',
        )
    )
    return findings


def render(findings: list[Finding]) -> str:
    """The report: one line per finding, each problem followed by what to do."""
    lines = []
    for finding in findings:
        lines.append(f"{'ok     ' if finding.ok else 'PROBLEM'}  {finding.what}")
        if finding.todo:
            lines.append(f"         what to do: {finding.todo}")
    problems = sum(not f.ok for f in findings)
    lines.append("No problems found." if not problems else f"{problems} problem(s) found.")
    return "\n".join(lines)


def _modes(data_dir: Path) -> Finding:
    if not data_dir.exists():
        return Finding(True, f"no data directory yet at {data_dir} (created on first use)")
    loose = [
        p
        for p in [data_dir, *data_dir.rglob("*")]
        if not p.is_symlink() and p.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO)
    ]
    if not loose:
        return Finding(True, f"{data_dir} and everything in it are private to their owner")
    shown = ", ".join(str(p) for p in loose[:MAX_LISTED])
    return Finding(
        False,
        f"other users may read {len(loose)} path(s): {shown}",
        "start the assistant once (it tightens them), or: chmod -R go-rwx " + str(data_dir),
    )


def _database(database: Path) -> list[Finding]:
    conn = sqlite3.connect(database)
    try:
        conn.text_factory = bytes
        problems = [
            str(row[0], "utf-8", "replace") for row in conn.execute("PRAGMA integrity_check")
        ]
        if problems == ["ok"]:
            checked = Finding(True, f"{database}: SQLite integrity_check ok")
        else:
            checked = Finding(
                False,
                f"{database}: integrity_check reports {len(problems)} problem(s): "
                + "; ".join(problems[:MAX_LISTED]),
                "restore the newest backup (see below); `assistant backup` first keeps a copy "
                "of the damaged file",
            )
        return [checked, _schemas(conn), _unreadable_text(conn)]
    finally:
        conn.close()


def _schemas(conn: sqlite3.Connection) -> Finding:
    """The schema components the database holds and their versions (as PostgreSQL's line
    says them)."""
    known = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_versions'"
    ).fetchone()[0]
    rows = (
        conn.execute("SELECT component, version FROM schema_versions ORDER BY component")
        if known
        else []
    )
    held = ", ".join(f"{_text(component)} version {version}" for component, version in rows)
    return Finding(True, f"schemas: {held}" if held else "no tables yet (created on first start)")


def _text(value: object) -> str:
    """A value read with ``text_factory = bytes``, as text."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _unreadable_text(conn: sqlite3.Connection) -> Finding:
    bad: list[str] = []
    tables = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
    ).fetchall()
    for (raw_name,) in tables:
        table = raw_name.decode() if isinstance(raw_name, bytes) else str(raw_name)
        columns = [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]
        for column in columns:
            name = column.decode() if isinstance(column, bytes) else str(column)
            rows = _text_values(conn, table, name)
            for rowid, value in rows:
                try:
                    value.decode("utf-8")
                except UnicodeDecodeError:
                    bad.append(f"{table} row {rowid} ({name})")
    if not bad:
        return Finding(True, "every stored text value can be read")
    shown = ", ".join(bad[:MAX_LISTED]) + (" ..." if len(bad) > MAX_LISTED else "")
    return Finding(
        False,
        f"{len(bad)} stored value(s) cannot be read (not UTF-8: a damaged page): {shown}",
        "those rows are skipped when read, so nothing else is affected; to get them back, "
        "restore the newest backup that predates the damage (see below)",
    )


def _text_values(conn: sqlite3.Connection, table: str, column: str) -> list[tuple[Any, bytes]]:
    """Each TEXT value of the column (as bytes) with its row id, or "?" for a table without
    row ids. The names come from the database's own schema."""
    where = f'FROM "{table}" WHERE typeof("{column}") = \'text\''
    try:
        return conn.execute(f'SELECT rowid, "{column}" {where}').fetchall()
    except sqlite3.OperationalError:  # WITHOUT ROWID
        return [("?", value) for (value,) in conn.execute(f'SELECT "{column}" {where}')]


def _backups(data_dir: Path, today: date) -> Finding:
    """The newest backup in the backups folder, daily or made by `assistant backup` (one
    written elsewhere with a path is not seen)."""
    folder = backups_of(data_dir)
    daily, manual = daily_backups(folder), manual_backups(folder)
    if not daily and not manual:
        return Finding(
            True,
            f"no backup in {folder} yet (one is made a day while {SCHEDULER_COMMANDS} "
            "runs); `assistant backup` makes one now",
        )
    newest, day = max([*daily, *manual], key=lambda item: item[1])
    age = (today - day).days
    listing = (
        f"{len(daily)} daily and {len(manual)} manual backup(s), "
        f"the newest {newest} ({day.isoformat()})"
    )
    if age > 1:
        return Finding(
            False,
            f"{listing} is {age} days old",
            f"daily backups are made while {SCHEDULER_COMMANDS} runs; run `assistant backup` now",
        )
    return Finding(True, listing)


class _Unusable(Exception):
    """The PostgreSQL database cannot be used; the message says why."""


def _not_open(where: str) -> _Unusable:
    return _Unusable(f"the connection to {where!r} is not open")


async def _postgres(url: str) -> list[Finding]:
    database = PostgresDatabase(
        url, failures=PostgresFailures("the database", _Unusable, _not_open), max_size=1
    )
    try:
        await database.open()
        version, schemas = await database.read(_server_and_schemas, snapshot=True)
        sizes = await database.read(_postgres_sizes, snapshot=True) if schemas else None
    except _Unusable as exc:
        return [
            Finding(
                False,
                str(exc),
                "check ASSISTANT_DATABASE_URL, that the server runs, and that it accepts this user",
            )
        ]
    finally:
        await database.close()
    held = ", ".join(f"{component} version {n}" for component, n in schemas)
    tables = f"schemas: {held}" if held else "no tables yet (created on first start)"
    found = [Finding(True, f"PostgreSQL {version} at {database.where} answers; {tables}")]
    if sizes is not None:
        found.append(Finding(True, sizes))
    return found


async def _postgres_sizes(conn: PgConnection) -> str:
    try:
        async with conn.transaction():  # a savepoint: a missing table leaves the read usable
            held = await read_postgres_sizes(conn)
    except asyncpg.PostgresError:
        return _NO_SIZES
    size = int(await conn.fetchval("SELECT pg_database_size(current_database())"))
    return f"{_sizes_text(held)}; database {size / 1e6:,.1f} MB"


_NO_SIZES = (
    "the task tables are not there yet, or of an older version (the next start updates them)"
)


def _sqlite_sizes(database: Path) -> Finding:
    conn = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)
    try:
        held = read_sqlite_sizes(conn)
    except sqlite3.Error:
        return Finding(True, _NO_SIZES)
    finally:
        conn.close()
    wal = Path(f"{database}-wal")
    wal_mb = wal.stat().st_size / 1e6 if wal.exists() else 0.0
    size = f"file {database.stat().st_size / 1e6:,.1f} MB (WAL {wal_mb:,.1f} MB)"
    return Finding(True, f"{_sizes_text(held)}; {size}")


def _sizes_text(held: StoreSizes) -> str:
    removed = (
        f"; {held.removed_tasks:,} finished tasks removed so far, summed up per owner "
        f"({held.owner_summaries:,} owners)"
        if held.owner_summaries
        else ""
    )
    return (
        f"tasks: {held.live_tasks:,} live, {held.finished_tasks:,} finished{removed}; run "
        f"ledger: {held.ledger_rows:,} rows in full, {held.summaries:,} task summaries"
    )


def _retention(policy: LedgerPolicy) -> Finding:
    finished = (
        "finished tasks are kept"
        if policy.finished_for is None
        else f"finished tasks (done, cancelled) are removed {_days(policy.finished_for)} after "
        "their last run into their owner's summary (how many, how they ended, the last outcome "
        "and the last failure)"
    )
    return Finding(
        True,
        f"retention: ledger rows older than {_days(policy.keep_for)} are folded into their "
        f"task's summary (counts, last outcome, last failure; each task's newest "
        f"{policy.keep_runs} kept in full); {finished}",
    )


def _days(span: timedelta) -> str:
    days = span / timedelta(days=1)
    return f"{days:g} day{'' if days == 1 else 's'}"


async def _server_and_schemas(conn: PgConnection) -> tuple[str, list[tuple[str, int]]]:
    version = str(await conn.fetchval("SHOW server_version"))
    if not await conn.fetchval("SELECT to_regclass('schema_versions') IS NOT NULL"):
        return version, []
    rows = await conn.fetch("SELECT component, version FROM schema_versions ORDER BY component")
    return version, [(str(r["component"]), int(r["version"])) for r in rows]
