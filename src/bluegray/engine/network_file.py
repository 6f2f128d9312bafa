"""Engine 4's network as training fits it (floats) and as a file (quantised integers).

Training (``scripts/train_network.py``) fits a ``FloatNetwork``; ``quantise`` turns it into the
integer ``network.Network`` the engine evaluates with; ``write_network`` and ``read_network``
store it as JSON: plain lists of integers that any kernel reads into arrays at run time, as
``weights.json`` is read, never compiled in. One file a rule-set family
(``networks/<family>.json`` in the package: ``sackson``'s, ``cooper``'s, ``super``'s and
``pow-classic``'s families ship one; for the others ``network_for`` finds none and the engine
keeps the linear evaluation).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal

from bluegray.bitboard import Board
from bluegray.engine import ENGINE_VERSION
from bluegray.engine.evaluation import Evaluator, family
from bluegray.engine.network import (
    ACCUMULATOR_LIMIT,
    ACTIVATION_MAX,
    BIAS_LIMIT,
    ELO_PER_LOGIT,
    FEATURE_COUNT,
    INT8_LIMIT,
    OUTPUT_MULTIPLIER,
    WEIGHT_SCALE,
    Layer,
    Network,
    NetworkError,
    active_features,
)
from bluegray.errors import BlueGrayError
from bluegray.rules import RuleSet

FORMAT: Final = "bluegray-network"
FORMAT_VERSION: Final = 1
MAX_FILE_BYTES: Final = 5 * 1024 * 1024
"""A family's network file is at most 5 MB."""
DEFAULT_WIDTHS: Final = (32, 8, 8)
"""The accumulator's width per perspective, then the hidden layers': small, so that the plain
kernel can afford it (the file carries its own widths)."""

Matrix = list[list[float]]


class NetworkFileError(BlueGrayError):
    """A network file that cannot be read: not the format, or values outside their widths."""


@dataclass
class FloatNetwork:
    """The network with real parameters, as training fits it: ``accumulator[f]`` is feature
    ``f``'s row; each of ``hidden`` and ``output`` is (rows over the inputs, biases)."""

    accumulator: Matrix
    accumulator_biases: list[float]
    hidden: list[tuple[Matrix, list[float]]]
    output: tuple[Matrix, list[float]]


def _clamp(value: float, limit: int) -> int:
    return max(-limit, min(limit, round(value)))


def quantise(network: FloatNetwork) -> Network:
    """The integer network nearest ``network`` within the widths (values beyond them are
    clipped; training clips its weights to the same ranges, so that none should be)."""
    scale = ACTIVATION_MAX * WEIGHT_SCALE
    return Network(
        accumulator=tuple(
            tuple(_clamp(w * ACTIVATION_MAX, ACCUMULATOR_LIMIT) for w in row)
            for row in network.accumulator
        ),
        accumulator_biases=tuple(
            _clamp(b * ACTIVATION_MAX, ACCUMULATOR_LIMIT) for b in network.accumulator_biases
        ),
        hidden=tuple(
            Layer(
                tuple(tuple(_clamp(w * WEIGHT_SCALE, INT8_LIMIT) for w in row) for row in rows),
                tuple(_clamp(b * scale, BIAS_LIMIT) for b in biases),
            )
            for rows, biases in network.hidden
        ),
        output=Layer(
            tuple(
                tuple(_clamp(w * WEIGHT_SCALE, INT8_LIMIT) for w in row)
                for row in network.output[0]
            ),
            tuple(_clamp(b * scale, BIAS_LIMIT) for b in network.output[1]),
        ),
        output_multiplier=OUTPUT_MULTIPLIER,
    )


def _dense(rows: Matrix, biases: Sequence[float], inputs: Sequence[float]) -> list[float]:
    return [
        b + math.fsum(w * x for w, x in zip(row, inputs, strict=True))
        for row, b in zip(rows, biases, strict=True)
    ]


def float_value(network: FloatNetwork, board: Board) -> float:
    """What the float network says of ``board`` for its side to move, in Elo units (the
    number the quantised network approximates)."""
    sums = []
    for perspective in (0, 1):
        total = list(network.accumulator_biases)
        for feature in active_features(board, perspective):
            total = [t + w for t, w in zip(total, network.accumulator[feature], strict=True)]
        sums.append(total)
    inputs = [min(1.0, max(0.0, v)) for v in (*sums[board.turn], *sums[board.turn ^ 1])]
    for rows, biases in network.hidden:
        inputs = [min(1.0, max(0.0, v)) for v in _dense(rows, biases, inputs)]
    return _dense(network.output[0], network.output[1], inputs)[0] * ELO_PER_LOGIT


# -- the file --------------------------------------------------------------------------------


def network_json(network: Network, family_name: str, training: dict[str, Any] | None = None) -> str:
    """The file's text for ``network`` of a rule-set family (``training``: how it was made)."""
    data = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "engine": ENGINE_VERSION,
        "family": family_name,
        "features": FEATURE_COUNT,
        "widths": list(network.widths),
        "output_multiplier": network.output_multiplier,
        "accumulator": {
            "weights": [list(row) for row in network.accumulator],
            "biases": list(network.accumulator_biases),
        },
        "hidden": [
            {"weights": [list(row) for row in layer.weights], "biases": list(layer.biases)}
            for layer in network.hidden
        ],
        "output": {
            "weights": [list(row) for row in network.output.weights],
            "biases": list(network.output.biases),
        },
        "training": training or {},
    }
    return json.dumps(data, separators=(",", ":")) + "\n"


def write_network(
    path: Path, network: Network, family_name: str, training: dict[str, Any] | None = None
) -> None:
    """Write the file, refusing one over ``MAX_FILE_BYTES``."""
    text = network_json(network, family_name, training)
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise NetworkFileError(f"a network file of {len(text)} bytes is over {MAX_FILE_BYTES}")
    path.write_text(text, encoding="utf-8")


def _layer(data: Any, what: str) -> Layer:
    try:
        return Layer(tuple(tuple(row) for row in data["weights"]), tuple(data["biases"]))
    except (KeyError, TypeError) as error:
        raise NetworkFileError(f"the network file's {what} layer is malformed: {error}") from None


def parse_network(text: str) -> tuple[Network, str]:
    """The network in a file's text, and its family; ``NetworkFileError`` when it is not a
    network file of this format or a value breaks its width."""
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise NetworkFileError(f"a network file is at most {MAX_FILE_BYTES} bytes")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NetworkFileError(f"a network file is JSON: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise NetworkFileError(f"not a network file (its format is not {FORMAT!r})")
    if data.get("version") != FORMAT_VERSION or data.get("features") != FEATURE_COUNT:
        raise NetworkFileError(
            f"a network file of version {data.get('version')!r} with {data.get('features')!r} "
            f"features: this engine reads version {FORMAT_VERSION} with {FEATURE_COUNT}"
        )
    accumulator = _layer(data.get("accumulator"), "accumulator")
    hidden = data.get("hidden")
    if not isinstance(hidden, list):
        raise NetworkFileError("the network file's hidden layers are not a list")
    multiplier = data.get("output_multiplier")
    if not isinstance(multiplier, int):
        raise NetworkFileError("the network file's output multiplier is not a whole number")
    try:
        network = Network(
            accumulator=accumulator.weights,
            accumulator_biases=accumulator.biases,
            hidden=tuple(_layer(layer, "hidden") for layer in hidden),
            output=_layer(data.get("output"), "output"),
            output_multiplier=multiplier,
        )
    except NetworkError as error:
        raise NetworkFileError(f"the network file breaks the network's widths: {error}") from None
    return network, str(data.get("family", ""))


def read_network(path: Path) -> tuple[Network, str]:
    """The network in a file, and its family."""
    return parse_network(path.read_text(encoding="utf-8"))


NetworkChoice = tuple[Network, str] | Literal["shipped"] | None
"""Which evaluation a player asks for: ``"shipped"`` (its family's shipped network, or the linear
evaluation where the family has none), ``None`` (the linear evaluation), or a network read from
a file, with the family it was trained for."""


def choose_network(value: str) -> NetworkChoice:
    """The evaluation ``value`` names: ``shipped``, ``none``, or a network file's path."""
    if value in ("shipped", "none"):
        return None if value == "none" else "shipped"
    try:
        return read_network(Path(value))
    except OSError as error:
        raise NetworkFileError(
            f"cannot read the network file {value!r}: {error.strerror or error}"
        ) from None
    except UnicodeDecodeError:
        raise NetworkFileError(f"{value}: not a network file (not text)") from None
    except NetworkFileError as error:
        raise NetworkFileError(f"{value}: {error}") from None


def network_for(rules: RuleSet) -> Network | None:
    """The shipped network of ``rules``'s family, or ``None`` when the family has none (the
    engine then uses the linear evaluation)."""
    return _shipped(family(rules))


@lru_cache(maxsize=32)
def _shipped(family_name: str) -> Network | None:
    resource = resources.files("bluegray.engine").joinpath("networks", f"{family_name}.json")
    if not resource.is_file():
        return None
    return parse_network(resource.read_text("utf-8"))[0]


def evaluator_for(rules: RuleSet, weights: dict[str, float] | None = None) -> Evaluator:
    """The engine's evaluator for ``rules``: the family's shipped network when it has one, else
    the linear evaluation (with ``weights``, or the family's)."""
    return Evaluator(rules, weights, network=network_for(rules))


def describe_evaluation(rules: RuleSet, network: Network | None, source: str = "") -> str:
    """Which evaluation ``rules`` gets with ``network`` (its family's shipped one, one read from
    the file ``source``, or none), in a line for ``bluegray engine``'s ``info string``."""
    name = family(rules)
    if network is None:
        if network_for(rules) is None:
            return f"linear evaluation: no network for this family ({name})"
        return f"linear evaluation: its network ({name}) is turned off"
    widths = "-".join(map(str, network.widths))
    if network is network_for(rules):
        where = f"networks/{name}.json"
    elif source:
        where = f"{source} for the family {name}"
    else:
        where = f"a network given for the family {name}"
    return f"network {where} (format version {FORMAT_VERSION}, widths {widths})"
