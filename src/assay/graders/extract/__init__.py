"""The extract grader and answer extraction: the final answer read from a reply, or a refusal."""
