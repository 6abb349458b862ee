"""Running a campaign on a provider: its client, launching its HITs or study, syncing their state back (pending
decisions too), where it stands there, and MTurk's HITs after the launch (expire, extend, delete, notify)."""
