"""The grader registry at its documented public path; it lives in :mod:`assay.services.grading.registry`."""

from assay.services.grading.registry import GraderService

__all__ = ["GraderService"]
