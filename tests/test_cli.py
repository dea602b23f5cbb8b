"""The `webfactory` command line, run as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent


def wf(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    res = subprocess.run(
        [sys.executable, "-m", "webfactory_env.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "7"},
    )
    if check and res.returncode != 0:
        raise AssertionError(f"exit {res.returncode}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}")
    return res


def test_generate_prints_digest_and_writes_the_spec(tmp_path):
    from webfactory_env.sitegen import generate_site

    res = wf("generate", "--family", "shop", "--seed", "42", "--out", str(tmp_path))
    digest = generate_site("shop", 42).digest
    assert f"digest: {digest}" in res.stdout
    spec = json.loads((tmp_path / "site.json").read_text())
    assert spec["digest"] == digest and spec["seed"] == 42 and spec["entities"]["products"]
    data = json.loads(wf("generate", "--family", "shop", "--seed", "42", "--json").stdout)
    assert data["family"] == "shop" and data["seed"] == 42 and data["digest"] == digest


def test_tasks_list_and_compile():
    tasks = json.loads(wf("tasks", "list", "--json").stdout)
    mug = next(t for t in tasks if t["name"] == "buy_red_mug")
    assert mug["family"] == "shop" and "mug" in mug["description"]
    assert all({"name", "family", "description", "difficulty"} <= set(t) for t in tasks)
    assert {t["difficulty"] for t in tasks} == {"easy", "medium", "hard"}
    assert mug["difficulty"] == "hard"
    table = wf("tasks", "list", "--family", "kanban").stdout.splitlines()
    assert table and all(line.split()[1] == "kanban" for line in table)
    assert any(line.split()[2] == "easy" for line in table)
    compiled = json.loads(
        wf("compile", "buy_red_mug", "--family", "shop", "--seed", "3", "--json").stdout
    )
    assert compiled["subgoals"] and compiled["plan"] and compiled["digest"]
    assert compiled["bindings"]["click-item-mug"]["color"] == "Red"
    text = wf("compile", "buy_red_mug", "--family", "shop", "--seed", "3").stdout
    assert "oracle plan:" in text and "witness:" in text
    assert compiled["frame"]["creates"] == {"orders": 1}
    assert "frame (and nothing else" in text and "the task creates: 1 record in orders" in text


def test_schema_says_what_the_frame_keeps_and_why():
    rows = json.loads(wf("schema", "--json").stdout)
    assert {r["family"] for r in rows} >= {"shop", "travel", "kanban", "account", "forum"}
    why = {(r["family"], r["path"]): (r["frame"], r["why"]) for r in rows}
    assert why[("shop", "orders.*.status")] == (True, "entity")
    assert why[("shop", "orders.*.total_cents")] == (False, "derived")
    assert why[("shop", "cart")] == (False, "transient (this visit)")
    assert why[("shop", "wishlist")] == (True, "persistent setting")
    assert why[("travel", "extras.insurance")] == (False, "transient")
    assert why[("account", "logins")][1].startswith("entity (a log")
    assert why[("kanban", "forms")] == (False, "transient (draft)")
    text = wf("schema", "--family", "forum").stdout
    assert "activity.following" in text and "kept: persistent setting" in text
    assert "\nshop" not in text


def test_malformed_task_file_gets_a_compiler_style_error(tmp_path):
    bad = tmp_path / "bad.task"
    bad.write_text('task t {\n  goto route("/shop")\n  click Item(title~="Mug");\n}\n')
    res = wf("compile", str(bad), "--family", "shop", "--seed", "1", check=False)
    assert res.returncode == 2 and res.stdout == ""
    first, line, caret = res.stderr.splitlines()[:3]
    assert first.startswith(f"{bad}:2:22: ") and "expected ';'" in first
    assert line.strip() == 'goto route("/shop")' and caret.strip() == "^"
    assert "Traceback" not in res.stderr


def test_compile_warns_of_an_old_state_path_where_it_is_written():
    task = "tests/tasks/blueprint_book_flight_roundtrip.task"
    res = wf("compile", task, "--family", "travel", "--seed", "2", "--json")
    (warning,) = res.stderr.splitlines()
    assert warning.startswith(f"{task}:17:14: warning: `itinerary.status")
    assert "booking.status" in warning
    assert json.loads(res.stdout)["warnings"][0]["line"] == 17


def test_user_errors_are_one_line_without_traceback():
    res = wf("generate", "--family", "shpo", "--seed", "1", check=False)
    assert res.returncode == 2
    message = res.stderr.strip()
    assert message.startswith("error: unknown family 'shpo'. Did you mean 'shop'? Choose one of:")
    assert "\n" not in message and message.endswith(".")
    assert "Traceback" not in res.stderr
    res = wf("compile", "nope_task", "--family", "shop", "--seed", "1", check=False)
    assert res.returncode == 2 and "unknown task 'nope_task'" in res.stderr


def test_fmt_round_trips_library_files(tmp_path):
    src = ROOT / "dsl" / "tasks" / "shop" / "buy_red_mug.task"
    assert wf("fmt", str(src)).stdout == src.read_text()
    assert wf("fmt", str(src), "--check").returncode == 0
    messy = tmp_path / "m.task"
    messy.write_text('task   t{goto route( "/shop" ) ;}')
    assert wf("fmt", str(messy), "--check", check=False).returncode == 1
    canonical = wf("fmt", str(messy)).stdout
    assert canonical == 'task t {\n  goto route("/shop");\n}\n'
    messy.write_text(canonical)
    assert wf("fmt", str(messy), "--check").returncode == 0


@pytest.mark.browser
def test_run_json_and_demo_artifacts(tmp_path):
    res = json.loads(
        wf(
            "run",
            "--family",
            "shop",
            "--task",
            "buy_red_mug",
            "--seed",
            "5",
            "--agent",
            "oracle",
            "--json",
        ).stdout
    )
    assert res["success"] is True and res["steps"] >= 11 and res["outcome"] == "success"
    assert res["return"] > 3 and len(res["site_digest"]) == 64 and len(res["task_digest"]) == 64
    rnd = json.loads(
        wf(
            "run",
            "--task",
            "buy_red_mug",
            "--seed",
            "5",
            "--agent",
            "random",
            "--max-steps",
            "10",
            "--json",
        ).stdout
    )
    assert rnd["success"] is False and rnd["steps"] == 10 and rnd["return"] < res["return"]

    out = tmp_path / "demo"
    demo = wf("demo", "--out", str(out), "--seed", "2")
    assert "step 11" in demo.stdout and "success" in demo.stdout
    assert Image.open(out / "final.png").size == (1280, 800)
    lines = [json.loads(x) for x in (out / "trace.jsonl").read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["site_build"]["seed"] == 2
    assert [x["t"] for x in lines[1:]] == list(range(1, len(lines))) and lines[-1]["success"]


@pytest.mark.parametrize("args", [("tasks", "list"), ("tasks", "list", "--json")])
def test_a_closed_pipe_ends_quietly(args):
    """`webfactory tasks list | head -1`: the reader is gone before we write. No traceback,
    nothing on stderr, the exit status of a process that SIGPIPE ended (141)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody reads: the first write fails with EPIPE
    try:
        res = subprocess.run(
            [sys.executable, "-m", "webfactory_env.cli", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
    finally:
        os.close(write_end)
    assert res.stderr == "" and res.returncode == 141


def test_bench_refuses_bad_env_counts(capsys):
    from webfactory_env.cli import main

    assert main(["bench", "--envs", "2,x"]) != 0
    assert "--envs takes comma-separated env counts" in capsys.readouterr().err


def test_axes_and_vary_fix_variation_axes():
    axes = json.loads(wf("axes", "--json").stdout)
    assert {a["name"] for a in axes} >= {"theme", "choice_widget", "list_mode", "distractors"}
    data = json.loads(
        wf(
            "generate", "--family", "kanban", "--seed", "3", "--json",
            "--vary", "theme=dark", "--vary", "choice_widget=typeahead",
        ).stdout
    )  # fmt: skip
    assert data["variation"]["theme"] == "dark"
    assert data["variation"]["choice_widget"] == "typeahead"
    bad = wf("generate", "--family", "kanban", "--seed", "3", "--vary", "them=dark", check=False)
    assert bad.returncode != 0 and "did you mean 'theme'" in bad.stderr.lower()
    assert "Traceback" not in bad.stderr


@pytest.mark.browser
def test_generate_screenshot_writes_a_png_per_page_kind(tmp_path):
    from webfactory_env.sitegen import generate_site

    res = wf(
        "generate", "--family", "forum", "--seed", "2", "--vary", "theme=dark",
        "--out", str(tmp_path), "--screenshot", "--json",
    )  # fmt: skip
    files = [Path(f) for f in json.loads(res.stdout)["files"] if f.endswith(".png")]
    site = generate_site("forum", 2, variation={"theme": "dark"})
    assert len(files) == len(site.representative_routes())
    for f in files:
        with Image.open(f) as img:
            assert img.format == "PNG" and img.width > 0
            dark = img.convert("L").getpixel((img.width - 5, img.height - 5))
        assert dark < 100, f"{f.name} is not dark"
