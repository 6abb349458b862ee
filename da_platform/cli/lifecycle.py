"""CLI: ``campaign list|pause|resume|close|release|preview|delete``, ``test-set list|delete``,
``system list|delete|replace`` (``da_platform.campaigns.lifecycle`` does the work).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click
from sqlalchemy.orm import Session

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.params import (
    CAMPAIGN,
    SYSTEM,
    TEST_SET,
    WORKER,
    NamedCampaign,
    NamedSystem,
    NamedTestSet,
    NamedWorker,
)

if TYPE_CHECKING:
    from da_platform.campaigns.lifecycle import Deleted

ACTOR = "cli"
_reason = click.option("--reason", default="", help="Why (stored in the audit log).")
_force = click.option("--force", is_flag=True, help="Delete even what holds ratings (an audit record stays).")


def _changing(context: CliContext, work) -> None:
    """Run ``work(session)`` in one transaction; a LifecycleError or InputError becomes a CLI error."""
    from da_core.errors import InputError
    from da_platform.campaigns.lifecycle import LifecycleError
    from da_platform.db.engine import transaction

    try:
        with transaction(context.sessions) as session:
            message = work(session)
    except (LifecycleError, InputError) as error:
        raise click.ClickException(f"{error}\nnothing was changed") from None
    click.echo(message)


def _deleting(context: CliContext, work: Callable[[Session], Deleted], describe: Callable[[Deleted], str]) -> None:
    """``_changing`` for a deletion; once it is committed, delete its campaigns' prepared export files
    (``<instance>/exports``; a server on another machine never offers them to another campaign)."""
    from da_platform.exports.prepared import remove_campaign_files

    done: list[Deleted] = []

    def run(session: Session) -> str:
        done.append(work(session))
        return describe(done[0])

    _changing(context, run)
    for problem in remove_campaign_files(context.settings.instance_path / "exports", done[0].prepared):
        click.echo(f"warning: could not delete the prepared exports {problem}", err=True)


def _rows(headers: list[str], rows: Sequence[Sequence[object]]) -> None:
    from da_platform.cli.tables import plain_table

    click.echo(plain_table(headers, rows) if rows else "none")


# -- campaigns ---------------------------------------------------------------------------------------

@click.group("campaign")
def campaign_group() -> None:
    """List campaigns; pause, resume or close one; release a stuck assignment; preview; delete."""


@campaign_group.command("list")
@pass_context
def campaign_list(context: CliContext) -> None:
    """Every campaign with its status, progress and ratings."""
    from da_platform.campaigns.listing import list_campaigns

    with context.sessions() as session:
        rows = [[c.name, c.criterion, c.test_set.name, c.status.value, len(c.systems),
                 f"{progress.hits_done}/{progress.hits_total}", progress.ratings_line()]
                for c, progress in list_campaigns(session)]
    _rows(["campaign", "criterion", "test set", "status", "systems", "HITs done", "ratings"], rows)


def _status_command(change: str, help_text: str) -> None:
    @campaign_group.command(change, help=help_text)
    @click.argument("campaign", type=CAMPAIGN)
    @_reason
    @pass_context
    def command(context: CliContext, campaign: NamedCampaign, reason: str) -> None:
        from da_platform.campaigns.lifecycle import change_status

        def work(session: Session) -> str:
            found = campaign.find(session)
            status = change_status(session, found, change, actor=ACTOR, reason=reason)
            return f"campaign {found.name!r} is {status.value} now"

        _changing(context, work)


_status_command("open", "Open a built CAMPAIGN to workers.")
_status_command("pause", "Hand out no new HIT of CAMPAIGN until `resume` (work under way may finish).")
_status_command("resume", "Hand out HITs of a paused CAMPAIGN again.")
_status_command("close", "Close CAMPAIGN for good: no new HIT is handed out (work under way may finish).")


@campaign_group.command("release")
@click.argument("campaign", type=CAMPAIGN)
@click.option("--assignment", "assignment_id", help="Public id of the assignment (see `campaign assignments`).")
@click.option("--worker", "worker_id", type=WORKER, help="Release this worker's assignment in progress (source:id as "
                                            "`campaign assignments` prints it, or the id alone).")
@_reason
@pass_context
def campaign_release(context: CliContext, campaign: NamedCampaign, assignment_id: str | None,
                     worker_id: NamedWorker | None, reason: str) -> None:
    """Give a stuck assignment's HIT back to others (its ratings are kept)."""
    from da_platform.campaigns.assignments import assignment_to_release
    from da_platform.campaigns.lifecycle import release_assignment

    if (assignment_id is None) == (worker_id is None):
        raise click.UsageError("name the assignment with exactly one of --assignment or --worker")

    def work(session: Session) -> str:
        found = campaign.find(session)
        person = worker_id.find(session, found) if worker_id is not None else None
        assignment = assignment_to_release(session, found, public_id=assignment_id, worker=person)
        if assignment is None:
            whose = f"of worker {str(worker_id)!r} " if worker_id is not None else f"{assignment_id!r} "
            raise click.ClickException(f"no assignment {whose}in progress in campaign {found.name!r} (see "
                                       f"`da-platform campaign assignments {found.name}`)")
        release_assignment(session, assignment, actor=ACTOR, reason=reason)
        return (f"released assignment {assignment.public_id} (HIT {assignment.hit.index}, "
                f"{assignment.next_position} ratings kept)")

    _changing(context, work)


@campaign_group.command("assignments")
@click.argument("campaign", type=CAMPAIGN)
@pass_context
def campaign_assignments(context: CliContext, campaign: NamedCampaign) -> None:
    """Assignments in progress: worker, HIT, items rated (x/100), last activity."""
    from da_platform.campaigns.assignments import assignments_in_progress

    with context.sessions() as session:
        found = campaign.find(session)
        rows = [[a.public_id, a.worker, a.label or "", a.hit_index, f"{a.rated}/{a.total}",
                 a.last_activity.strftime("%Y-%m-%d %H:%M UTC"), "overdue" if a.overdue else ""]
                for a in assignments_in_progress(session, found)]
    _rows(["assignment", "worker", "label", "HIT", "rated", "last activity", ""], rows)


@campaign_group.command("preview")
@click.argument("campaign", type=CAMPAIGN)
@click.option("--hit", "hit_index", type=click.IntRange(min=0), default=0, show_default=True,
              help="HIT to preview (numbered from 0).")
@click.option("--slot", "position", type=click.IntRange(min=0), default=0, show_default=True,
              help="Slot of the HIT (numbered from 0).")
@click.option("--images", "image_folder", type=click.Path(file_okay=False, path_type=Path),
              help="Also write the slot's images (answer-a.png, answer-b.png) to this folder.")
@pass_context
def campaign_preview(context: CliContext, campaign: NamedCampaign, hit_index: int, position: int,
                     image_folder: Path | None) -> None:
    """Show one slot as the worker sees it, and its hidden facts. Creates no worker or assignment.

    The dashboard has the same preview with the images (campaign page, "Preview the HITs").
    """
    from da_platform.campaigns.preview import PreviewError, slot_preview, write_images
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.rating.language import worker_language
    from hit_builder.storage import LocalImageStorage

    with context.sessions() as session:
        found = campaign.find(session)
        seen = worker_language(CampaignSettings.of(found).worker)  # what the worker reads: the campaign's language
        try:
            shown = slot_preview(session, found, hit_index, position)
        except PreviewError as error:
            raise click.ClickException(str(error)) from None
    click.echo(f"HIT {shown.hit_index}, item {shown.position + 1} of {shown.total} (worker pages in {seen.lang})\n")
    click.echo(f"statement:  {seen.text(shown.statement)}")
    if seen.text(shown.statement) != shown.statement:
        click.echo(f"            (in English: {shown.statement})")
    click.echo(f"question:   {shown.question}")
    if shown.reference_text is not None:
        click.echo(f"answer A:   {shown.reference_text}")
    click.echo(f"answer{' B' if shown.reference_text is not None else ''}:   {shown.candidate_text}\n")
    click.echo(f"hidden from the worker: {shown.slot_type}, system {shown.system}, question {shown.question_id}"
               + (f", check of item {shown.original_position + 1}" if shown.original_position is not None else ""))
    if image_folder is not None:
        try:
            for written in write_images(shown, LocalImageStorage(context.settings.images), image_folder):
                click.echo(f"wrote {written}")
        except PreviewError as error:
            raise click.ClickException(str(error)) from None


@campaign_group.command("delete")
@click.argument("campaign", type=CAMPAIGN)
@_force
@_reason
@pass_context
def campaign_delete(context: CliContext, campaign: NamedCampaign, force: bool, reason: str) -> None:
    """Delete CAMPAIGN with its HITs, assignments and ratings (refused if rated, unless --force)."""
    from da_platform.campaigns.lifecycle import delete_campaign

    _deleting(context, lambda session: delete_campaign(session, campaign.find(session), force=force,
                                                       actor=ACTOR, reason=reason),
              lambda deleted: f"deleted {deleted.what} ({deleted.ratings} ratings)")


# -- test sets and systems ------------------------------------------------------------------------------

@click.group("test-set")
def test_set_group() -> None:
    """List or delete test sets."""


@test_set_group.command("list")
@pass_context
def test_set_list(context: CliContext) -> None:
    """Every test set with its questions, systems and campaigns."""
    from da_platform.campaigns.listing import list_test_sets

    with context.sessions() as session:
        rows = [[t.name, t.questions, ", ".join(t.systems), ", ".join(t.campaigns)] for t in list_test_sets(session)]
    _rows(["test set", "questions", "systems", "campaigns"], rows)


@test_set_group.command("delete")
@click.argument("name", type=TEST_SET)
@_force
@_reason
@pass_context
def test_set_delete(context: CliContext, name: NamedTestSet, force: bool, reason: str) -> None:
    """Delete test set NAME with its systems (refused if it has campaigns, unless --force)."""
    from da_platform.campaigns.lifecycle import delete_test_set

    _deleting(context, lambda session: delete_test_set(session, name.find(session), force=force, actor=ACTOR,
                                                       reason=reason), _with_campaigns)


def _with_campaigns(deleted: Deleted) -> str:
    also = f", campaigns {', '.join(deleted.campaigns)}" if deleted.campaigns else ""
    return f"deleted {deleted.what}{also} ({deleted.ratings} ratings)"


@click.group("system")
def system_group() -> None:
    """List, delete or replace the answers of systems."""


@system_group.command("list")
@click.option("--test-set", "test_set", type=TEST_SET, help="Only this test set.")
@pass_context
def system_list(context: CliContext, test_set: NamedTestSet | None) -> None:
    """Every system with its test set and answer count."""
    from da_platform.campaigns.listing import list_systems

    with context.sessions() as session:
        rows = [[s.test_set, s.name, "yes" if s.is_human else "", s.answers]
                for s in list_systems(session, test_set.find(session) if test_set is not None else None)]
    _rows(["test set", "system", "human", "answers"], rows)


@system_group.command("delete")
@click.option("--test-set", "test_set", type=TEST_SET, required=True, help="The system's test set.")
@click.argument("name", type=SYSTEM)
@_force
@_reason
@pass_context
def system_delete(context: CliContext, test_set: NamedTestSet, name: NamedSystem, force: bool, reason: str) -> None:
    """Delete system NAME and its answers (refused if a campaign rates it, unless --force)."""
    from da_platform.campaigns.lifecycle import delete_system

    _deleting(context, lambda session: delete_system(session, name.find(session, test_set.find(session)), force=force,
                                                     actor=ACTOR, reason=reason), _with_campaigns)


@system_group.command("replace")
@click.option("--test-set", "test_set", type=TEST_SET, required=True, help="The system's test set.")
@click.argument("name", type=SYSTEM)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@_reason
@pass_context
def system_replace(context: CliContext, test_set: NamedTestSet, name: NamedSystem, file: Path, reason: str) -> None:
    """Replace every answer of system NAME with FILE's (checked as `import answers` checks them).

    Refused once a built campaign shows the system's answers.
    """
    from da_platform.campaigns.lifecycle import replace_answers

    def work(session: Session) -> str:
        system = name.find(session, test_set.find(session))
        count = replace_answers(session, system, file, actor=ACTOR, reason=reason)
        return f"replaced the answers of system {system.name!r}: {count} answers from {file}"

    _changing(context, work)
