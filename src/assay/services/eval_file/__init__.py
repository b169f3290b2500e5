"""One eval described in one file, ``assay.yaml`` (docs/eval-file.md): its model, loading, plan and gates."""

MAX_EVAL_FILE_BYTES = 1024 * 1024
"""Largest ``assay.yaml`` read (it describes an eval; its cases live in suite files). Here, not in
``loading``, so that the server's request schema names it without loading YAML and the file's model."""
