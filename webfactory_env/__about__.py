"""The package version: part of every site and task digest."""

__version__ = "0.1.0"
