"""``python -m da_platform``: the same command line as ``da-platform``."""
from da_platform.cli import main

main()
