"""CLI: ``campaign list|open|pause|resume|close|release|assignments|preview|delete`` (``da_platform.campaigns``
does the work; test sets and systems: ``cli/test_sets.py``).
"""
from __future__ import annotations

from pathlib import Path

import click
from sqlalchemy.orm import Session

from da_platform.cli.context import CliContext, pass_context
from da_platform.cli.lifecycle_steps import ACTOR, changing, deleting, force_option, print_rows, reason_option
from da_platform.cli.params import CAMPAIGN, WORKER, NamedCampaign, NamedWorker


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
    print_rows(["campaign", "criterion", "test set", "status", "systems", "HITs done", "ratings"], rows)


def _status_command(change: str, help_text: str) -> None:
    @campaign_group.command(change, help=help_text)
    @click.argument("campaign", type=CAMPAIGN)
    @reason_option
    @pass_context
    def command(context: CliContext, campaign: NamedCampaign, reason: str) -> None:
        from da_platform.campaigns.lifecycle import change_status

        def work(session: Session) -> str:
            found = campaign.find(session)
            status = change_status(session, found, change, actor=ACTOR, reason=reason)
            return f"campaign {found.name!r} is {status.value} now"

        changing(context, work)


_status_command("open", "Open a built CAMPAIGN to workers.")
_status_command("pause", "Hand out no new HIT of CAMPAIGN until `resume` (work under way may finish).")
_status_command("resume", "Hand out HITs of a paused CAMPAIGN again.")
_status_command("close", "Close CAMPAIGN for good: no new HIT is handed out (work under way may finish).")


@campaign_group.command("release")
@click.argument("campaign", type=CAMPAIGN)
@click.option("--assignment", "assignment_id", help="Public id of the assignment (see `campaign assignments`).")
@click.option("--worker", "worker_id", type=WORKER, help="Release this worker's assignment in progress (source:id as "
                                            "`campaign assignments` prints it, or the id alone).")
@reason_option
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

    changing(context, work)


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
    print_rows(["assignment", "worker", "label", "HIT", "rated", "last activity", ""], rows)


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
@force_option
@reason_option
@pass_context
def campaign_delete(context: CliContext, campaign: NamedCampaign, force: bool, reason: str) -> None:
    """Delete CAMPAIGN with its HITs, assignments and ratings (refused if rated, unless --force)."""
    from da_platform.campaigns.lifecycle import delete_campaign

    deleting(context, lambda session: delete_campaign(session, campaign.find(session), force=force,
                                                       actor=ACTOR, reason=reason),
              lambda deleted: f"deleted {deleted.what} ({deleted.ratings} ratings)")
