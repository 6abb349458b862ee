"""From a researcher's files to HITs, without the database: file readers and formats, assembly with hidden
checks, degradation, images (the database side is :mod:`da_platform.building`)."""
