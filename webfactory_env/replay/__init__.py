"""Replay: self-contained episode bundles, their verification, offline datasets, the viewer.

Imports the env and `trace`; the CLI imports it."""

from webfactory_env.replay.bundle import (
    BundleManifest,
    check_files,
    open_bundle,
    write_bundle,
)
from webfactory_env.replay.dataset import (
    EpisodeArrays,
    load_dataset,
    read_index,
    read_skipped,
    write_dataset,
)
from webfactory_env.replay.verify import Verdict, verify_bundle
from webfactory_env.replay.viewer import render_report, write_report

__all__ = [
    "BundleManifest",
    "EpisodeArrays",
    "Verdict",
    "check_files",
    "load_dataset",
    "open_bundle",
    "read_index",
    "read_skipped",
    "render_report",
    "verify_bundle",
    "write_bundle",
    "write_dataset",
    "write_report",
]
