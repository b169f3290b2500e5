"""Graders of graders."""
