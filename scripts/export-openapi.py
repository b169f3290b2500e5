#!/usr/bin/env python3
"""Write the API's OpenAPI document to frontend/openapi.json (the source of the TypeScript client).

Usage: ``.venv/bin/python scripts/export-openapi.py [OUTPUT]``. The output is deterministic, so a
difference in ``git diff`` means the API changed and the client must be regenerated.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from assay.api.app import create_app

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "frontend" / "openapi.json"


def main() -> None:
    """Export the document of a default app to the given path (default frontend/openapi.json)."""
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUTPUT
    document = create_app().openapi()
    output.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}")


if __name__ == "__main__":
    main()
