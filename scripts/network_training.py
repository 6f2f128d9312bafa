"""Fitting engine 4's network with NumPy (``train_network.py train``).

The float network of ``bluegray.engine.network_file.FloatNetwork``: a sparse first layer (the
sum of the active features' rows, per perspective), clipped ReLUs to ``0..1``, two small dense
layers and one output in logits: a correction added to the linear evaluation's value (in
logits), as the engine adds the quantised network's output to it (``network.corrected``), so a
network that has learnt nothing plays as engine 3. The loss is the cross-entropy between the
output's expected score and a target that mixes the search's expected score with the game's result
(``target = mix * sigmoid(score / ELO_PER_LOGIT) + (1 - mix) * result``). Adam, minibatches,
weights clipped after each step to what quantisation can represent (``ACCUMULATOR_LIMIT / 127``
in the first layer, ``127 / 64`` after it). Gradients are written out by hand: four layers do
not need an autograd library.

After each epoch the whole state (parameters, Adam's moments, the generator, the losses) is saved
atomically, so a run stopped at any moment resumes from its last finished epoch.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bluegray.engine.network import (
    ACCUMULATOR_LIMIT,
    ACTIVATION_MAX,
    ELO_PER_LOGIT,
    FEATURE_COUNT,
    INT8_LIMIT,
    WEIGHT_SCALE,
)
from bluegray.engine.network_file import FloatNetwork
from network_data import Sample

Floats = npt.NDArray[np.float64]
Indices = npt.NDArray[np.int64]
PAD = FEATURE_COUNT
"""The index of the always-zero row that pads a position's feature list."""
FIRST_LIMIT = ACCUMULATOR_LIMIT / ACTIVATION_MAX
LATER_LIMIT = INT8_LIMIT / WEIGHT_SCALE
NAMES = ("w1", "b1", "w2", "b2", "w3", "b3", "w4", "b4")


@dataclass
class Data:
    """Positions as arrays: padded feature indices of both perspectives (side to move first),
    the target, the game's result and the linear evaluation."""

    own: Indices
    other: Indices
    target: Floats
    result: Floats
    linear: Floats

    def __len__(self) -> int:
        return len(self.target)

    def subset(self, which: Indices) -> Data:
        return Data(
            self.own[which],
            self.other[which],
            self.target[which],
            self.result[which],
            self.linear[which],
        )


def sigmoid(x: Floats) -> Floats:
    result: Floats = 1 / (1 + np.exp(-x))
    return result


def as_data(samples: Sequence[Sample], mix: float) -> Data:
    width = max((max(len(s.own), len(s.other)) for s in samples), default=1)
    own = np.full((len(samples), width), PAD, dtype=np.int64)
    other = np.full((len(samples), width), PAD, dtype=np.int64)
    for row, sample in enumerate(samples):
        own[row, : len(sample.own)] = sample.own
        other[row, : len(sample.other)] = sample.other
    score = np.array([s.score for s in samples], dtype=np.float64)
    result = np.array([s.result for s in samples], dtype=np.float64)
    linear = np.array([s.linear for s in samples], dtype=np.float64)
    expected = sigmoid(np.clip(score, -3000, 3000) / ELO_PER_LOGIT)
    return Data(own, other, mix * expected + (1 - mix) * result, result, linear)


def initial_parameters(rng: np.random.Generator, widths: Sequence[int]) -> dict[str, Floats]:
    width, first, second = widths
    return {
        "w1": np.vstack([rng.uniform(-0.05, 0.05, (FEATURE_COUNT, width)), np.zeros((1, width))]),
        "b1": np.full(width, 0.3),
        "w2": rng.uniform(-1, 1, (first, 2 * width)) / math.sqrt(2 * width),
        "b2": np.full(first, 0.2),
        "w3": rng.uniform(-1, 1, (second, first)) / math.sqrt(first),
        "b3": np.full(second, 0.2),
        # No correction at first: the evaluation starts as the linear one.
        "w4": np.zeros((1, second)),
        "b4": np.zeros(1),
    }


def forward(p: dict[str, Floats], data: Data) -> tuple[Floats, list[Floats]]:
    """The evaluation in logits (the linear evaluation plus the network's correction), and what
    backpropagation needs."""
    own = p["b1"] + p["w1"][data.own].sum(axis=1)
    other = p["b1"] + p["w1"][data.other].sum(axis=1)
    z1 = np.concatenate([own, other], axis=1)
    x1 = np.clip(z1, 0, 1)
    z2 = x1 @ p["w2"].T + p["b2"]
    x2 = np.clip(z2, 0, 1)
    z3 = x2 @ p["w3"].T + p["b3"]
    x3 = np.clip(z3, 0, 1)
    # The network corrects the linear evaluation: its output is added to the linear value.
    out = (x3 @ p["w4"].T + p["b4"])[:, 0] + data.linear / ELO_PER_LOGIT
    return out, [z1, x1, z2, x2, z3, x3]


def log_loss(probability: Floats, target: Floats) -> float:
    q = np.clip(probability, 1e-9, 1 - 1e-9)
    return float(-np.mean(target * np.log(q) + (1 - target) * np.log(1 - q)))


def gradients(p: dict[str, Floats], data: Data) -> tuple[float, dict[str, Floats]]:
    out, (z1, x1, z2, x2, z3, x3) = forward(p, data)
    probability = sigmoid(out)
    loss = log_loss(probability, data.target)
    d_out = ((probability - data.target) / len(data))[:, None]
    g: dict[str, Floats] = {"w4": d_out.T @ x3, "b4": d_out.sum(axis=0)}
    d3 = (d_out @ p["w4"]) * ((z3 > 0) & (z3 < 1))
    g["w3"], g["b3"] = d3.T @ x2, d3.sum(axis=0)
    d2 = (d3 @ p["w3"]) * ((z2 > 0) & (z2 < 1))
    g["w2"], g["b2"] = d2.T @ x1, d2.sum(axis=0)
    d1 = (d2 @ p["w2"]) * ((z1 > 0) & (z1 < 1))
    width = p["b1"].shape[0]
    d_own, d_other = d1[:, :width], d1[:, width:]
    g["b1"] = d_own.sum(axis=0) + d_other.sum(axis=0)
    w1 = np.zeros_like(p["w1"])
    for indices, d in ((data.own, d_own), (data.other, d_other)):
        np.add.at(w1, indices.ravel(), np.repeat(d, indices.shape[1], axis=0))
    w1[PAD] = 0
    g["w1"] = w1
    return loss, g


def clip_parameters(p: dict[str, Floats]) -> None:
    """Keep every weight where quantisation can represent it."""
    np.clip(p["w1"], -FIRST_LIMIT, FIRST_LIMIT, out=p["w1"])
    np.clip(p["b1"], -FIRST_LIMIT, FIRST_LIMIT, out=p["b1"])
    for name in ("w2", "w3", "w4"):
        np.clip(p[name], -LATER_LIMIT, LATER_LIMIT, out=p[name])
    p["w1"][PAD] = 0


@dataclass
class State:
    """A training run's whole state, saved after every epoch."""

    parameters: dict[str, Floats]
    first: dict[str, Floats]
    second: dict[str, Floats]
    steps: int = 0
    epoch: int = 0
    generator: dict[str, Any] = field(default_factory=dict)
    losses: list[dict[str, float]] = field(default_factory=list)


def new_state(widths: Sequence[int], seed: int) -> State:
    rng = np.random.default_rng(seed)
    p = initial_parameters(rng, widths)
    return State(
        p,
        {k: np.zeros_like(v) for k, v in p.items()},
        {k: np.zeros_like(v) for k, v in p.items()},
        generator=dict(rng.bit_generator.state),
    )


def save_state(path: Path, state: State) -> None:
    arrays = {f"p_{k}": v for k, v in state.parameters.items()}
    arrays |= {f"m_{k}": v for k, v in state.first.items()}
    arrays |= {f"v_{k}": v for k, v in state.second.items()}
    meta = {
        "steps": state.steps,
        "epoch": state.epoch,
        "generator": state.generator,
        "losses": state.losses,
    }
    arrays["meta"] = np.array(json.dumps(meta))
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial.npz")
    np.savez(partial, **arrays)  # type: ignore[arg-type]
    os.replace(partial, path)


def save_parameters(path: Path, parameters: dict[str, Floats], epoch: int) -> None:
    """Save one epoch's parameters alone, atomically (the best epoch's, for ``write``)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial.npz")
    np.savez(partial, epoch=np.array(epoch), **parameters)  # type: ignore[arg-type]
    os.replace(partial, path)


def load_parameters(path: Path) -> tuple[dict[str, Floats], int]:
    """The parameters ``save_parameters`` saved, and their epoch."""
    with np.load(path) as stored:
        return {name: stored[name] for name in NAMES}, int(stored["epoch"])


def load_state(path: Path) -> State:
    with np.load(path) as archive:
        meta = json.loads(str(archive["meta"]))
        return State(
            {k: archive[f"p_{k}"] for k in NAMES},
            {k: archive[f"m_{k}"] for k in NAMES},
            {k: archive[f"v_{k}"] for k in NAMES},
            meta["steps"],
            meta["epoch"],
            meta["generator"],
            meta["losses"],
        )


def train_epoch(
    state: State,
    data: Data,
    batch: int,
    rate: float,
    on_batch: Callable[[int], None] | None = None,
) -> float:
    """One pass of Adam over ``data`` in a shuffled order; the mean training loss."""
    rng = np.random.default_rng()
    rng.bit_generator.state = state.generator
    order = rng.permutation(len(data))
    state.generator = dict(rng.bit_generator.state)
    beta1, beta2, epsilon = 0.9, 0.999, 1e-8
    total = 0.0
    for start in range(0, len(data), batch):
        part = data.subset(order[start : start + batch])
        loss, g = gradients(state.parameters, part)
        total += loss * len(part)
        state.steps += 1
        for name, gradient in g.items():
            m = state.first[name] = beta1 * state.first[name] + (1 - beta1) * gradient
            v = state.second[name] = beta2 * state.second[name] + (1 - beta2) * gradient**2
            m_hat = m / (1 - beta1**state.steps)
            v_hat = v / (1 - beta2**state.steps)
            state.parameters[name] -= rate * m_hat / (np.sqrt(v_hat) + epsilon)
        clip_parameters(state.parameters)
        if on_batch is not None:
            on_batch(len(part))
    state.epoch += 1
    return total / max(1, len(data))


def evaluation_losses(p: dict[str, Floats], data: Data) -> dict[str, float]:
    """How well each evaluation predicts the games' results (log loss): engine 4's (the linear
    evaluation corrected by the network) and the linear one alone; and the loss trained on."""
    out, _ = forward(p, data)
    return {
        "target": log_loss(sigmoid(out), data.target),
        "network_result": log_loss(sigmoid(out), data.result),
        "linear_result": log_loss(sigmoid(data.linear / ELO_PER_LOGIT), data.result),
        # The linear evaluation is not calibrated: at its best scale on these positions it
        # predicts better than as it is, and that is the bar a correction must clear.
        "linear_scaled_result": min(
            log_loss(sigmoid(scale * data.linear / ELO_PER_LOGIT), data.result)
            for scale in np.arange(0.1, 2.0, 0.05)
        ),
    }


def float_network(p: dict[str, Floats]) -> FloatNetwork:
    """The trained parameters as ``network_file``'s float network (to quantise)."""
    return FloatNetwork(
        accumulator=p["w1"][:FEATURE_COUNT].tolist(),
        accumulator_biases=p["b1"].tolist(),
        hidden=[(p["w2"].tolist(), p["b2"].tolist()), (p["w3"].tolist(), p["b3"].tolist())],
        output=(p["w4"].tolist(), p["b4"].tolist()),
    )
