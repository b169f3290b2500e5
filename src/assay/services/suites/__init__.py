"""Test suites and their cases."""
