"""Asking an agent about cases and grading each reply, for any driver."""
