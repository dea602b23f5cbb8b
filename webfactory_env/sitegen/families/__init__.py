"""Built-in site families; each module registers itself on import."""
