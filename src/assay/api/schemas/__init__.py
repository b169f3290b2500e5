"""Request and response models of the REST API: the one place its types are written (OpenAPI derives)."""
