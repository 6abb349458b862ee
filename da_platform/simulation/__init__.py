"""Simulated crowds, the demo, the sample data: only the CLI uses them, no product module (lint-imports checks)."""
