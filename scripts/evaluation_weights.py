"""The evaluation's weights as the tuning scripts see them: the shipped weights file, read and
written back, and the weights as a linear map of bounded parameters (what the rules say about
each feature's sign), which both the logistic fit and SPSA move.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bluegray.engine.evaluation import FEATURES

REPOSITORY = Path(__file__).resolve().parents[1]
WEIGHTS = REPOSITORY / "src" / "bluegray" / "engine" / "weights.json"
Matrix = npt.NDArray[np.float64]


def read_weights() -> dict[str, Any]:
    """The shipped weights file (``families`` and ``fits``), to update and write back."""
    data: dict[str, Any] = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    return data


def write_weights(data: dict[str, Any]) -> None:
    WEIGHTS.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def parameters() -> tuple[Matrix, list[tuple[float | None, float | None]]]:
    """The weights as a linear map of parameters with bounds: what the rules say about each
    feature's sign, so that the fit cannot turn a confounded correlation into a rule.

    Advancement is fitted as three slopes (0-5, 5-11, 11-17), each at least 0: a captain never
    loses by moving forward. The race values grow with the lead (``race+0`` is 0: the tempo
    already counts it). Enemy blockers and threatened soldiers count against, material,
    privates' progress, free run, mobility and the impasse pressure for; the tempo and one's
    own blockers (in the way, but also keeping enemies out) may go either way.
    """
    index = {name: i for i, name in enumerate(FEATURES)}
    columns: list[dict[int, float]] = []
    bounds: list[tuple[float | None, float | None]] = []

    def parameter(weights: dict[str, float], low: float | None, high: float | None) -> None:
        columns.append({index[name]: value for name, value in weights.items()})
        bounds.append((low, high))

    parameter({"tempo": 1}, None, None)
    parameter({"advancement": 1, "advancement-middle": -1}, 0, None)
    parameter({"advancement-middle": 1, "advancement-end": -1}, 0, None)
    parameter({"advancement-end": 1}, 0, None)
    parameter({"race+1": 1, "race+2": 1}, 0, None)
    parameter({"race+2": 1}, 0, None)
    parameter({"race-1": -1, "race-2": -1}, 0, None)
    parameter({"race-2": -1}, 0, None)
    for name in ("own-blockers-near", "own-blockers-far"):
        parameter({name: 1}, None, None)
    for name in ("enemy-blockers-near", "enemy-blockers-far", "threatened"):
        parameter({name: 1}, None, 0)
    for name in ("free-run", "guards", "privates", "advanced-privates", "mobility"):
        parameter({name: 1}, 0, None)
    parameter({"impasse-pressure": 1}, 0, None)
    parameter({"siege": 1}, None, None)
    parameter({"simplification": 1}, None, None)
    parameter({"projected-lead": 1}, 0, None)
    matrix = np.zeros((len(FEATURES), len(columns)))
    for j, column in enumerate(columns):
        for i, value in column.items():
            matrix[i, j] = value
    return matrix, bounds
