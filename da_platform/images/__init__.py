"""Where answer images live (folder, database, S3 bucket), and the per-slot variation they are served with."""
