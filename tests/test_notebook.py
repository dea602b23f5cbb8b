"""notebooks/curriculum.ipynb runs top to bottom on a small budget, and is kept without
outputs in git."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("sb3_contrib")

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "curriculum.ipynb"


def test_the_notebook_is_stored_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


@pytest.mark.browser
@pytest.mark.slow
def test_the_curriculum_notebook_runs_on_a_small_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = NOTEBOOK.read_bytes()
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # The kernel inherits this process's environment.
    monkeypatch.setenv("WEBFACTORY_NOTEBOOK_BUDGET", "small")
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError naming the failing cell

    text = "".join(
        out.get("text", "") for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs
    )
    assert "budget: small" in text
    assert "held-out success:" in text
    assert "starting from: an untrained policy" in text
    assert "zero-shot on shop_order_status: policy" in text
    figures = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if "image/png" in out.get("data", {})
    ]
    assert len(figures) == 2  # success against steps, and the per-axis gap
    # Executing never writes the outputs back into the stored notebook.
    assert NOTEBOOK.read_bytes() == before
