"""The README's training examples run as written, on a smaller budget: `train(TrainConfig)`
from a script (whose env workers import the script again: the `__main__` guard is what
keeps them from training too), and `MaskablePPO(PointerPolicy, env, ...)` built directly.
The script's summary says where all of the run's wall time went."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent


def readme_block(first_line: str) -> str:
    """The README's one ```python block that starts with `first_line`."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if b.startswith(first_line)]
    assert len(found) == 1, f"one README block starts with {first_line!r}"
    return found[0]


def shrunk(code: str, changes: list[tuple[str, str]]) -> str:
    for old, new in changes:
        assert old in code, f"the README example no longer says {old!r}"
        code = code.replace(old, new)
    return code


def test_the_python_training_example_runs_as_a_script(tmp_path: Path) -> None:
    small = (
        "replace(config, demo_episodes=2, bc_updates=20, timesteps=16, n_steps=8, "
        "batch_size=8, eval_seeds=SeedRange(100_000, 2), eval_every=10**9, "
        f"eval_sampled=False, out=Path({str(tmp_path / 'run')!r}))"
    )
    code = shrunk(
        readme_block("# train.py"),
        [
            ("    result = train(config)\n", f"    result = train({small})\n"),
            (
                "from pathlib import Path\n",
                "from dataclasses import replace\nfrom pathlib import Path\n\n"
                "from webfactory_env.training.levels import SeedRange\n",
            ),
        ],
    )
    assert 'if __name__ == "__main__":' in code
    script = tmp_path / "train.py"
    script.write_text(code)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "held-out success" in done.stdout
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    timing = summary["timing_s"]
    # The final timing covers the whole run: the demonstrations and the baselines too.
    assert timing["demos"] > 0 and timing["baselines"] > 0 and timing["cloning"] > 0
    assert summary["wall_s"] >= sum(timing.values()) - 0.5
    assert summary["config"]["envs"] == 2 and summary["config"]["vec_env"] == "subproc"


def test_the_pointer_policy_example_builds_maskable_ppo_directly(capsys) -> None:
    code = shrunk(
        readme_block("# the pointer policy in your own MaskablePPO"),
        [
            ("n_steps=64, batch_size=64", "n_steps=8, batch_size=8"),
            ("total_timesteps=512", "total_timesteps=8"),
        ],
    )
    exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})
    said = capsys.readouterr().out.strip().splitlines()[-1]
    assert said.startswith(("solved", "not solved"))
