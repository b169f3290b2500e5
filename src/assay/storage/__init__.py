"""Storage: tables, queries and migrations on SQLite or PostgreSQL."""
