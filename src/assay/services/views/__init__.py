"""Read-only views over stored evaluations."""
