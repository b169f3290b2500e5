"""Graders as the platform uses them."""
