"""Pure analysis of DA ratings: quality control, scores, rankings, reliability and metrics.

Nothing here imports the database or Flask: functions take rating tables and return result objects.
"""
