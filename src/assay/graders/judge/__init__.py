"""The llm-judge grader, its prompt, and the strict reader of its chat reply."""
