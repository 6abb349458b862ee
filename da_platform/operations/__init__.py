"""Running a campaign on a provider: launch its HITs or study, and sync their state back (pending decisions too)."""
