"""HIT building against the database: import into the tables, build and verify a campaign, sample data,
image blobs. The pure steps (assembly, layouts, degradation, rendering, readers) are in :mod:`hit_builder`."""
