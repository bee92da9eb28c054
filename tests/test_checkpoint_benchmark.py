"""scripts/checkpoint_benchmark.py in ``--quick`` mode: the 2-D
shallow-water model of benchmarks/checkpointing/ under plain taping,
binomial(snapshots=20) and every(100) for N = 100, 200, 400 steps.

The figures it reports must show what checkpointing is for: the binomial
schedule's peak memory the same for every N, the plain tape growing, the
gradients equal to the plain adjoint's, and a real plot."""

import json
import re
import subprocess
import sys

import harness

SCRIPT = harness.REPO_ROOT / "scripts" / "checkpoint_benchmark.py"
VARIANTS = ("plain", "binomial", "every")
STEPS = (100, 200, 400)


def test_quick_benchmark(tmp_path):
    png, figures = tmp_path / "checkpointing.png", tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--plot", str(png),
                           "--json", str(figures)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr

    # The table: one row per N and variant.
    rows = re.findall(r"^\| (\d+) \| (\w+) \|", done.stdout, re.M)
    assert {(int(n), v) for n, v in rows} == {(n, v) for n in STEPS for v in VARIANTS}, \
        done.stdout

    data = json.loads(figures.read_text())["rows"]
    peak = {(r["variant"], r["steps"]): r["peak_bytes"] for r in data}
    # Binomial: S snapshots and one step's tape whatever N; plain: one
    # step's tape per step.
    assert len({peak["binomial", n] for n in STEPS}) == 1, peak
    assert peak["plain", 100] < peak["plain", 200] < peak["plain", 400], peak
    assert peak["plain", 400] == 4 * peak["plain", 100], peak
    assert peak["binomial", 400] < peak["every", 400] < peak["plain", 400], peak
    for row in data:
        if row["variant"] != "plain":
            assert row["grad_diff"] <= 1e-10, row
        assert row["records"] == row["steps"], row
        assert row["ratio"] > 1, row

    import matplotlib.image
    image = matplotlib.image.imread(str(png))
    assert image.shape[0] > 200 and image.shape[1] > 200, image.shape
    assert image.std() > 0
