"""What a grader is and returns."""
