"""Assay in CI: the pull request's comment (see README.md)."""
