"""``da-platform admin``: the accounts of the researchers' dashboard."""
from __future__ import annotations

import click

from da_platform.cli.context import CliContext, creates_database, pass_context


@click.group()
def admin() -> None:
    """Accounts of the researchers' dashboard (/admin)."""


def _with_new_password(context: CliContext, name: str, change) -> None:
    """Ask for a password twice and apply ``change(session, name, password)`` in one transaction."""
    from da_platform.config.accounts import AccountError, check_username
    from da_platform.db.engine import transaction

    try:
        check_username(name)
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
        with transaction(context.sessions) as session:
            change(session, name, password)
    except AccountError as error:
        raise click.ClickException(str(error)) from None


@admin.command("create-user")
@click.argument("name")
@pass_context
@creates_database
def create_user(context: CliContext, name: str) -> None:
    """Create a dashboard account; asks for the password twice (stored as a salted scrypt hash)."""
    from da_platform.config.accounts import create_user as create

    _with_new_password(context, name, create)
    click.echo(f"user {name} created")


@admin.command("set-password")
@click.argument("name")
@pass_context
def set_password(context: CliContext, name: str) -> None:
    """Change a dashboard account's password (asks twice)."""
    from da_platform.config.accounts import set_password as change

    _with_new_password(context, name, change)
    click.echo(f"password of {name} changed")


@admin.command("list-users")
@pass_context
def list_users(context: CliContext) -> None:
    """List the dashboard accounts."""
    from sqlalchemy import select

    from da_platform.db.models import AdminUser

    with context.sessions() as session:
        for user in session.scalars(select(AdminUser).order_by(AdminUser.username)):
            click.echo(f"{user.username}\tcreated {user.created_at:%Y-%m-%d %H:%M}")
