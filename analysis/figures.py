"""Matplotlib without a display, and writing a figure out (every plot of ``analysis`` uses these)."""
from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path, dpi: int = 120) -> Path:
    """Lay ``fig`` out, write it to ``path`` and close it, also when drawing fails (pyplot keeps every open
    figure otherwise)."""
    try:
        fig.tight_layout()
        fig.savefig(path, dpi=dpi)
    finally:
        pyplot().close(fig)
    return path
