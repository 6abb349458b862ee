"""CLI commands: filled in by its area (see da_platform/cli/__init__.py)."""
import click

COMMANDS: list[click.Command] = []
