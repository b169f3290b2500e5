"""Runs without a server (assay run, assay grade-file)."""
