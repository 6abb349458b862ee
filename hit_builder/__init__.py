"""From a researcher's files to built HITs: import, assembly with hidden checks, degradation, images."""
