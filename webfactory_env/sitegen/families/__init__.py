"""Built-in site families, one package each of the same shape (content, state, queries,
transitions, views, app and its data files); each registers itself on import.

Imported by the registry (and tests); families never import each other."""
