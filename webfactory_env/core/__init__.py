"""Shared foundations: errors, stable hashing and seed streams, predicates, resources."""
