"""What a campaign's ratings say: its one analysis (cached), rankings per subset, planning, a worker's plots;
and a ratings file's analysis through the same options."""
