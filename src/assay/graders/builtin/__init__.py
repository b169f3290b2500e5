"""The single-answer graders."""
