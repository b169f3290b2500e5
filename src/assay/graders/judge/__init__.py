"""The llm-judge grader and the strict reader of its chat reply."""
