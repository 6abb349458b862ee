"""Campaigns built against the database: test sets and answers imported, a campaign built and verified.

The pure steps (readers, assembly, layouts, degradation, rendering) are in :mod:`hit_builder`.
"""
