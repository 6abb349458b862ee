"""Fingerprint of what the platform stores in ``Campaign.settings`` and what its analysis writes, to prove that a
change of code changed neither (run it in two checkouts and diff the outputs).

    PYTHONPATH=. python3 scripts/settings_fingerprint.py OUT_FILE [settings|analysis]

It builds campaigns of the bundled sample (one or two of its systems, to be quick: classic, hardened and
targeted layouts; plain and hardened render; en, zh-Hans and a language brought with --messages; with
--practice, --show-context, --qc), then runs every command that writes settings against the fakes of MTurk
and Prolific served on 127.0.0.1 (mturk launch, review, expire --delete; prolific launch, review; invite
--time-limit; pool review), and writes the stored settings text of every campaign after each step
(``settings``, about 10 minutes on a busy machine). Then a seeded demo (40 questions, a simulated crowd) gives
ratings, and the SHA-256 of its report and of what analyze and export write for it follow (``analysis``).
Ids, salts and seeds are fixed; what differs between any two runs (temporary paths, ids the fakes draw) is
masked.
"""
from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from click.testing import CliRunner

from da_platform.cli import main
from tests.fakes.fake_mturk import create_fake_mturk
from tests.fakes.fake_prolific import create_fake_prolific
from tests.fakes.server import serve_wsgi

BUILDS = {
    "classic-plain-en": ["--systems", "atlas,lyra"],
    "hardened-zh": ["--layout", "hardened", "--render", "hardened", "--lang", "zh-Hans", "--practice",
                    "--show-context"],
    "targeted-fr": ["--layout", "targeted", "--lang", "fr", "--messages", "{fr_po}", "--instructions", "{notes}",
                    "--contact", "lab@example.org", "--pay", "2 EUR", "--minutes", "12", "--qc", "wilcoxon"],
    "classic-hardened-zh": ["--render", "hardened", "--lang", "zh-Hans", "--show-context", "--qc", "ttest",
                            "--no-merge-identical"],
}
TEMPLATE = Path("da_platform/rating/translations/worker.pot")


def write_catalogue(path: Path) -> None:
    """A complete catalogue for a language not shipped (each message as its own translation)."""
    with TEMPLATE.open("rb") as handle:
        template = read_po(handle)
    catalogue = Catalog(locale="fr")
    for message in template:
        if message.id:
            catalogue.add(message.id, message.id)
    with path.open("wb") as handle:
        write_po(handle, catalogue)


def run(environ: dict[str, str], *args: str) -> str:
    result = CliRunner().invoke(main, list(args), env=environ, catch_exceptions=False)
    if result.exit_code != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{result.output}")
    return result.output


def stored(database: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(database) as connection:
        return connection.execute("SELECT name, settings FROM campaign ORDER BY id").fetchall()


def settings_lines(work: Path) -> list[str]:
    """The stored settings of every campaign after each step."""
    database = work / "da.sqlite"
    write_catalogue(work / "fr.po")
    (work / "notes.md").write_text("Read **carefully**.", encoding="utf-8")
    lines: list[str] = []

    def snapshot(step: str) -> None:
        for name, text in stored(database):
            text = text.replace(str(work), "WORK")
            text = re.sub(r'"study_id": "[^"]*"', '"study_id": "ID"', text)
            text = re.sub(r'"(hit_type_id|exclusion_qualification_id)": "[^"]*"', r'"\1": "ID"', text)
            text = re.sub(r'"deleted_hits": \[[^]]*\]', '"deleted_hits": [IDS]', text)
            lines.append(f"{step}\t{name}\t{text}")

    mturk, prolific = create_fake_mturk(), create_fake_prolific()
    with serve_wsgi(mturk) as mturk_url, serve_wsgi(prolific) as prolific_url:
        environ = {"DA_DATABASE_URL": f"sqlite:///{database}", "DA_INSTANCE_PATH": str(work / "instance"),
                   "DA_PUBLIC_URL": "https://da.example.org", "DA_SECRET_KEY": "fingerprint-secret",
                   "DA_MTURK_ENDPOINT_URL": mturk_url, "AWS_ACCESS_KEY_ID": "t", "AWS_SECRET_ACCESS_KEY": "t",
                   "DA_PROLIFIC_API_URL": prolific_url, "PROLIFIC_API_TOKEN": prolific.config["PROLIFIC"].token}
        run(environ, "init")
        run(environ, "import", "sample")
        for name, options in BUILDS.items():
            options = [o.format(fr_po=work / "fr.po", notes=work / "notes.md") for o in options]
            if "--systems" not in options:
                options += ["--systems", "atlas"]
            run(environ, "build", "--test-set", "sample", "--name", name, "--seed", "7", "--id-salt", "salt",
                "--processes", "1", "--images", str(work / "images"), *options)
        snapshot("built")
        run(environ, "mturk", "launch", "classic-plain-en", "--reward", "1.50", "--duration-minutes", "50",
            "--locale", "US", "--locale", "GB")
        snapshot("mturk-launch")
        run(environ, "mturk", "review", "classic-plain-en", "--bonus", "0.40", "--no-reject")
        snapshot("mturk-review")
        run(environ, "mturk", "expire", "classic-plain-en", "--delete")
        snapshot("mturk-expire-delete")
        with sqlite3.connect(database) as connection:  # no command sets it: the researcher's study has it
            connection.execute("UPDATE campaign SET completion_code = 'C0MPL3TE' WHERE name = 'hardened-zh'")
        run(environ, "prolific", "launch", "hardened-zh", "--reward", "3.00", "--max-minutes", "40")
        snapshot("prolific-launch")
        run(environ, "prolific", "review", "hardened-zh", "--bonus", "0.20", "--reject-min-pairs", "6", "--live")
        snapshot("prolific-review")
        run(environ, "invite", "targeted-fr", "--open", "--time-limit", "45", "-o", str(work / "links.txt"))
        snapshot("invite-time-limit")
        run(environ, "pool", "review", "targeted-fr", "--bonus", "0.25", "--identical-run", "30")
        snapshot("pool-review")
        run(environ, "invite", "classic-hardened-zh", "-o", str(work / "links2.txt"))
        snapshot("invite-default")

    return lines


def analysis_lines(work: Path) -> list[str]:
    """The settings of a seeded demo campaign (rated by a simulated crowd), and the SHA-256 of its report and
    of what analyze and export write for it."""
    lines: list[str] = []
    demo = work / "demo"
    run({}, "demo", "--out", str(demo), "--questions", "40", "--honest", "6", "--random", "1", "--constant", "1",
        "--bots", "0", "--hits-per-worker", "1", "--seed", "3", "--threads", "1", "--no-images")
    demo_db = demo / "demo.sqlite"
    for name, text in stored(demo_db):
        text = re.sub(r'"id_salt": "[^"]*"', '"id_salt": "SALT"', text.replace(str(demo), "DEMO"))  # drawn anew
        lines.append(f"demo\t{name}\t{text}")
    (campaign, _), *_ = stored(demo_db)
    environ = {"DA_DATABASE_URL": f"sqlite:///{demo_db}", "DA_INSTANCE_PATH": str(demo / "instance")}
    reports = work / "reports"
    run(environ, "analyze", "--campaign", campaign, "--out", str(reports / "analyze"), "--no-plots")
    run(environ, "export", "ranking", campaign, "-o", str(reports / "ranking.csv"))
    run(environ, "export", "ratings", campaign, "-o", str(reports / "ratings.csv"))
    run(environ, "export", "wmt", campaign, "-o", str(reports / "wmt"))
    for folder in (demo / "report", reports):
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            data = re.sub(rb"\b[0-9a-f]{32}\b", b"PUBLIC-ID", path.read_bytes())  # the salt's HIT ids
            digest = hashlib.sha256(data).hexdigest()
            lines.append(f"file\t{path.relative_to(work)}\t{digest}")
    return lines


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["settings"], ["analysis"]):
        raise SystemExit(__doc__)
    os.environ.pop("DA_DATABASE_URL", None)
    out, parts = Path(sys.argv[1]), sys.argv[2:] or ["settings", "analysis"]
    folder = Path(tempfile.mkdtemp(prefix="settings-fingerprint-"))
    found = [line for part in parts for line in {"settings": settings_lines, "analysis": analysis_lines}[part](folder)]
    out.write_text("\n".join(found) + "\n", encoding="utf-8")
    print(f"{len(found)} lines written to {out} (work folder {folder})")
