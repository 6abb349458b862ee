"""The naming pass (``scripts/rename_names2.py``): every old module and identifier name is gone from the code base,
and the script that replaced them is safe to run again after a merge of code written against the old names."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "rename_names2.py"


def load_script():
    spec = importlib.util.spec_from_file_location("rename_names2", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_old_name_is_left_in_the_code_base():
    found = subprocess.run([sys.executable, str(SCRIPT), "--check"], cwd=ROOT, capture_output=True, text=True)
    assert (found.returncode, found.stdout.splitlines()[-1]) == (0, "0 change(s) to make"), found.stdout


# Code as a branch written against the old names has it, and the same code as it must read after the pass (by hand).
OLD = """from analysis.states import QCMethod, StrState
from analysis.states import StrState
from analysis import behaviour
import analysis.planning
from da_platform.review.policy import HOLD, Verdict, judge
from da_platform.rating.behaviour import parse_behaviour
See `da_platform/results/planning_view.py` and da_platform/building/wave_plan.py, analysis/behaviour.py.
def recommendation() -> Verdict: return Verdict(...)
rating.behaviour = record  # a column, not the module
click.echo("Verdict (checks and behaviour signals): ...")
from analysis.verdict import VerdictStatus, WorkerVerdict
tests/analysis/states.py stays; my_analysis.states too; analysis.behaviour_signals is already new.
``CampaignSettings.qc`` is stored, CampaignSettings.qc_policy applies; CampaignSettings.of(row) reads them.
"""
NEW = """from analysis.qc_states import QCMethod, StrState
from da_core.enums import StrState
from analysis import behaviour_signals as behaviour
import analysis.power
from da_platform.review.decisions import HOLD, PaymentDecision, judge
from da_platform.rating.behaviour_record import parse_behaviour
See `da_platform/results/separation_cost.py` and da_platform/building/first_wave.py, analysis/behaviour_signals.py.
def recommendation() -> PaymentDecision: return PaymentDecision(...)
rating.behaviour = record  # a column, not the module
click.echo("Verdict (checks and behaviour signals): ...")
from analysis.verdict import VerdictStatus, WorkerVerdict
tests/analysis/states.py stays; my_analysis.states too; analysis.behaviour_signals is already new.
``CampaignSettings.stored_qc`` is stored, CampaignSettings.qc_policy applies; CampaignSettings.of(row) reads them.
"""


def test_the_renames_are_exact_and_a_second_run_changes_nothing():
    script = load_script()
    assert script.renamed(OLD) == NEW
    assert script.renamed(NEW) == NEW


def test_every_moved_module_is_at_its_new_path_only():
    script = load_script()
    for old, new in script.MODULES.items():
        assert not script.path_of(old).exists() and script.path_of(new).is_file(), (old, new)
