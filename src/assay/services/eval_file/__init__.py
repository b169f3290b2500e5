"""One eval described in one file, ``assay.yaml`` (docs/eval-file.md): its model, loading, plan and gates."""
