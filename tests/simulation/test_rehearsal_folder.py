"""The scratch folder of ``da-platform simulate`` (``rehearsal.fresh_workspace``): an earlier rehearsal's
files are removed, and the rehearsal never writes outside its folder, not through a symbolic link either.

A folder whose ``exports`` (or ``images``) was a symbolic link had the rehearsal write through it: a file
elsewhere was overwritten. The folder is prepared before any database is opened, so no database here."""
from __future__ import annotations

from pathlib import Path

import pytest

from da_platform.simulation.rehearsal import DATABASE, FOLDERS, SCRATCH, RehearsalError, fresh_workspace


def _earlier_rehearsal(out: Path) -> None:
    out.mkdir()
    (out / DATABASE).write_bytes(b"an earlier rehearsal")
    (out / "images").mkdir()
    (out / "images" / "a.png").write_bytes(b"png")


@pytest.mark.parametrize("name", FOLDERS + SCRATCH)
def test_a_rehearsal_name_linked_elsewhere_is_refused_and_nothing_changes(tmp_path: Path, name: str) -> None:
    out, elsewhere = tmp_path / "scratch", tmp_path / "elsewhere"
    _earlier_rehearsal(out)
    elsewhere.mkdir()
    (elsewhere / "ranking.csv").write_text("precious", encoding="utf-8")
    target = elsewhere if name in FOLDERS else elsewhere / "ranking.csv"
    if name != "images":
        (out / name).unlink(missing_ok=True)
    else:
        (out / "images" / "a.png").unlink()
        (out / "images").rmdir()
    (out / name).symlink_to(target)
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(RehearsalError, match=rf"{name} is a symbolic link \(to {elsewhere}.*\): a rehearsal writes "
                                             "only inside its folder, never through a link"):
        fresh_workspace(out)
    assert sorted(p.name for p in out.iterdir()) == before and (out / name).is_symlink()
    assert (elsewhere / "ranking.csv").read_text(encoding="utf-8") == "precious"


def test_links_inside_the_earlier_rehearsals_folders_are_removed_not_followed(tmp_path: Path) -> None:
    out, precious = tmp_path / "scratch", tmp_path / "precious.csv"
    _earlier_rehearsal(out)
    precious.write_text("precious", encoding="utf-8")
    (out / "exports").mkdir()
    (out / "exports" / "ranking.csv").symlink_to(precious)
    (out / "images" / "deeper").symlink_to(tmp_path, target_is_directory=True)
    assert fresh_workspace(out) == out / DATABASE
    assert list(out.iterdir()) == [] and precious.read_text(encoding="utf-8") == "precious"


def test_a_file_where_a_folder_of_the_rehearsal_goes_is_removed(tmp_path: Path) -> None:
    out = tmp_path / "scratch"
    _earlier_rehearsal(out)
    (out / "exports").write_bytes(b"not a folder")
    fresh_workspace(out)
    assert list(out.iterdir()) == []
