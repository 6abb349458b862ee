"""What a campaign's ratings say: its one analysis (cached), rankings per subset, planning, a worker's plots;
a ratings file's analysis through the same options; the systems' answers as metric corpora, the metrics as a
command sets them up (their settings, each answer's score) and their item-level agreement with the campaign."""
