"""The server's evaluation flow."""
