"""Pure analysis of DA ratings: quality control, scores, rankings, reliability and metrics.

Nothing here imports the database or Flask: functions take rating tables and return result objects.
"""

_LAZY = {"analyze": "analysis.report", "AnalysisResult": "analysis.report", "RatingsTable": "analysis.table",
         "read_ratings": "analysis.readers", "write_report": "analysis.output"}


def __getattr__(name: str) -> object:
    """``analysis.analyze`` etc. without importing numpy/scipy on ``import analysis.qc_states``."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'analysis' has no attribute {name!r}")
