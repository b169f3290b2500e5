"""Pure figures of a run."""
