"""Shared answer readers."""
