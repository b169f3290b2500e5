"""The semantic grader and the sentence embeddings it compares."""
