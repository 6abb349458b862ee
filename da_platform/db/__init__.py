"""What is stored: engine and migrations, the models and their states, rows that must exist, the audit trail."""
