"""Shared foundations: errors, stable hashing and seed streams, predicates over state,
answer grading, the DOM snapshot type, resources.

Imports nothing of the package; every stage may import it."""
