"""Every command names a campaign, test set, system or worker the same way (``da_platform/cli/params.py`` over
``db.rows.find_named``): by its name or by its id, a name that exists winning over an id, and one message listing
the names there are when it is not there. On SQLite and PostgreSQL."""
from __future__ import annotations

import click
import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from da_platform.cli import main
from da_platform.cli.params import CAMPAIGN, SYSTEM, TEST_SET, WORKER
from da_platform.db.models import Campaign
from tests import dashboard_factories as factories

# Every command that names a campaign, with the other arguments it needs to get as far as looking it up.
CAMPAIGN_COMMANDS = [
    ("inspect", "{c}"), ("analyze", "--campaign", "{c}"),
    ("analyze", "--campaign", "dash", "--out", "{dir}", "--no-plots", "--fluency-campaign", "{c}"),
    ("validate-metrics", "--campaign", "{c}"), ("reliability", "--campaign", "{c}", "--campaign", "dash"),
    ("subsets", "{c}", "--by", "answer_type"), ("agreement", "{c}"),
    ("export", "ranking", "{c}", "--out", "{out}"), ("export", "ratings", "{c}", "--out", "{out}"),
    ("export", "wmt", "{c}", "--out", "{out}"), ("export", "bundle", "{c}", "--out", "{out}"),
    ("invite", "{c}"), ("pool", "review", "{c}", "--dry-run"), ("decide", "{c}", "w", "block", "--reason", "r"),
    ("simulate", "{c}"), ("waves", "{c}"),
    *[("campaign", change, "{c}") for change in ("open", "pause", "resume", "close", "assignments", "preview",
                                                 "delete")],
    ("campaign", "release", "{c}", "--assignment", "a"),
    *[("mturk", command, "{c}") for command in ("launch", "status", "sync", "review", "expire")],
    ("mturk", "notify", "{c}", "--subject", "s", "--message", "m"),
    *[("prolific", command, "{c}") for command in ("launch", "status", "sync", "review")],
]
# Every command that names a test set, likewise.
TEST_SET_COMMANDS = [
    ("import", "answers", "--test-set", "{t}", "{out}"), ("import", "human", "--test-set", "{t}"),
    ("import", "judge-scores", "{out}", "--test-set", "{t}", "--judge", "j"),
    ("build", "--test-set", "{t}", "--name", "new"), ("metrics", "--test-set", "{t}"),
    ("validate-metrics", "--campaign", "dash", "--test-set", "{t}"),
    ("system", "list", "--test-set", "{t}"), ("system", "delete", "--test-set", "{t}", "strong"),
    ("system", "replace", "--test-set", "{t}", "strong", "{out}"), ("test-set", "delete", "{t}"),
]


def _parameters(command: click.Command = main, path: tuple[str, ...] = ()):
    """(command words, parameter) for every parameter of every command."""
    for parameter in command.params:
        yield path, parameter
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _parameters(sub, (*path, name))


def _command(args: tuple[str, ...]) -> tuple[str, ...]:
    """The command words that start ``args`` (``("export", "ranking")`` of ``export ranking {c} --out …``)."""
    command: click.Command = main
    words: list[str] = []
    for word in args:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        words.append(word)
        command = command.commands[word]
    return tuple(words)


def _kind(path: tuple[str, ...], parameter: click.Parameter) -> str | None:
    """What a parameter names, by its name: a campaign, a test set, a system, a worker, or nothing of these."""
    name = parameter.name or ""
    if isinstance(parameter.type, click.types.BoolParamType):
        return None  # --open, --all-workers
    if name in ("worker", "worker_id"):
        return "worker"  # (--workers and --max-hits-per-worker are counts, --bad KIND=N kinds)
    if path[0] in ("system", "test-set") and name == "name":
        return path[0].replace("-", "_")
    return next((kind for kind in ("campaign", "test_set") if kind in name), None)


def test_no_command_takes_a_campaign_test_set_system_or_worker_as_plain_text() -> None:
    types = {"campaign": CAMPAIGN, "test_set": TEST_SET, "system": SYSTEM, "worker": WORKER}
    naming: dict[str, set[tuple[str, ...]]] = {kind: set() for kind in types}
    for path, parameter in _parameters():
        kind = _kind(path, parameter)
        if kind is not None:
            assert parameter.type is types[kind], f"{' '.join(path)} {parameter.name}: {parameter.type!r}"
            naming[kind].add(path)
    assert naming["campaign"] == {_command(args) for args in CAMPAIGN_COMMANDS}  # the tables below test them all
    assert naming["test_set"] == {_command(args) for args in TEST_SET_COMMANDS}
    assert naming["system"] == {("system", "delete"), ("system", "replace")}
    assert naming["worker"] == {("decide",), ("campaign", "release")}


@pytest.fixture
def dash(sessions, tmp_path, monkeypatch) -> int:
    """``dashboard_factories``' campaign "dash" (test set "dash set"), rated; returns its id."""
    monkeypatch.setenv("DA_SECRET_KEY", "a key for the invite links")
    return factories.campaign_rated_in_part(sessions, tmp_path, rated_hits=4)


def test_a_campaign_or_test_set_that_is_not_there_is_the_same_error_in_every_command(run, dash, tmp_path,
                                                                                   database_url) -> None:
    shown = make_url(database_url).render_as_string(hide_password=True)
    out, folder = str(tmp_path / "out.csv"), str(tmp_path / "out")
    for args in CAMPAIGN_COMMANDS:
        result = run(*[a.format(c="nope", out=out, dir=folder) for a in args])
        assert result.exit_code == 1, (args, result.output)
        assert f"Error: no campaign named 'nope' (campaigns: dash) in database {shown}\n" in result.output, args
    for args in TEST_SET_COMMANDS:
        result = run(*[a.format(t="4096", out=out) for a in args])
        assert result.exit_code == 1, (args, result.output)
        assert (f"Error: no test set named '4096' or with id 4096 (test sets: dash set) in database {shown}\n"
                in result.output), args
    system = run("system", "delete", "--test-set", "dash set", "nope")
    assert system.exit_code == 1 and system.output == (
        f"Error: no system named 'nope' in test set 'dash set' (systems: {', '.join(sorted(factories.QUALITY))}) "
        f"in database {shown}\n")
    worker = run("decide", "dash", "nope", "block", "--reason", "r")
    assert worker.exit_code == 1 and "no worker 'nope' in campaign 'dash'" in worker.output
    huge = run("export", "ranking", "99999999999999999999999", "--out", out)  # beyond any id: SQLite could not bind it
    assert huge.exit_code == 1 and "Error: no campaign named '99999999999999999999999' (campaigns: dash)" in huge.output


@pytest.mark.slow
def test_an_id_finds_what_the_name_finds_in_every_command_that_only_reads(run, dash, tmp_path, sessions) -> None:
    """The same output by id as by name: ``analyze --campaign 7`` used to say there was no campaign 7."""
    with sessions() as session:
        test_set_id = session.get(Campaign, dash).test_set_id
    reads = [
        ("inspect", "{c}", "--hit", "1"), ("analyze", "--campaign", "{c}", "--out", "{out}", "--no-plots"),
        ("validate-metrics", "--campaign", "{c}", "--metric", "f1", "--out", "{out}"),
        ("reliability", "--campaign", "{c}", "--campaign", "dash", "--out", "{out}"), ("agreement", "{c}"),
        ("export", "ranking", "{c}", "--out", "{out}/ranking.csv"),
        ("export", "ratings", "{c}", "--out", "{out}/ratings.csv"),
        ("campaign", "assignments", "{c}"), ("campaign", "preview", "{c}", "--hit", "1", "--slot", "3"),
        ("pool", "review", "{c}", "--dry-run"), ("mturk", "status", "{c}"), ("prolific", "status", "{c}"),
        ("metrics", "--test-set", "{t}", "--metric", "f1"), ("system", "list", "--test-set", "{t}"),
    ]
    for args in reads:
        out = str(tmp_path / "out")
        by_name = run(*[a.format(c="dash", t="dash set", out=out) for a in args])
        by_id = run(*[a.format(c=str(dash), t=str(test_set_id), out=out) for a in args])
        assert by_name.exit_code == 0, (args, by_name.output)
        assert (by_id.exit_code, by_id.output) == (0, by_name.output), args


def test_a_name_that_exists_wins_over_an_id(run, dash, sessions, tmp_path) -> None:
    with sessions() as session:
        dash_row = session.get(Campaign, dash)
        session.add(Campaign(name=str(dash), test_set_id=dash_row.test_set_id, criterion="adequacy", statement="s",
                             seed=0))
        session.commit()
    out = tmp_path / "ranking.csv"
    named_as_id = run("export", "ranking", str(dash), "--out", str(out))  # the campaign named "<dash's id>"
    assert named_as_id.exit_code == 1 and f"campaign '{dash}' has no ratings yet" in named_as_id.output
    deleted = run("campaign", "delete", str(dash))
    assert deleted.exit_code == 0 and deleted.output == f"deleted campaign '{dash}' (0 ratings)\n"
    by_id = run("export", "ranking", str(dash), "--out", str(out))  # no such name now: dash, by its id
    assert by_id.exit_code == 0, by_id.output
    header, first = out.read_text(encoding="utf-8").splitlines()[:2]
    assert header.startswith("group,rank,") and first.startswith("dash,1,")  # dash's ranking
    with sessions() as session:
        assert list(session.scalars(select(Campaign.name))) == ["dash"]
