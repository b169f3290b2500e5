"""The REST API (FastAPI) and the web UI it serves."""
