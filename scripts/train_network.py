"""Train engine 4's network by self-play: positions, fit, quantised file (see docs/evaluation.md,
"Engine 4's network").

    pip install -e ".[train]"
    python scripts/train_network.py run --rules sackson --run data/network/sackson \\
        --shards 40 --positions 5000 --nodes 1000 --epochs 20 --jobs 2

``generate`` plays the self-play shards a run still lacks (``network_data``), ``train`` fits
the float network on them with NumPy (``network_training``), ``write`` quantises it and writes
the network file (``--out``, else ``RUN/network.json``); ``run`` does all three. With
``--cluster HOST:PORT`` the shards are played on a Ray cluster (``network_cluster``). Every step
resumes: finished shards are kept, training continues from its last finished epoch, so a run
stopped at any moment continues where it was when started again with the same command. A run's
settings are stored in ``RUN/run.json``; starting it again with different ones is refused.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from bluegray.engine import ENGINE_VERSION
from bluegray.engine.evaluation import family
from bluegray.engine.network_file import DEFAULT_WIDTHS, quantise, write_network
from bluegray.rules import RuleSet
from network_data import finished_shards, make_shard, read_shard, shard_path, write_shard
from network_training import (
    as_data,
    evaluation_losses,
    float_network,
    load_parameters,
    load_state,
    new_state,
    save_parameters,
    save_state,
    train_epoch,
)

BEST = "best.npz"
"""The parameters of the epoch with the lowest held-out loss so far, the ones ``write`` uses."""
SETTINGS = ("rules", "positions", "nodes", "seed")
NEW_RUN_DEFAULTS: dict[str, Any] = {"rules": "sackson", "positions": 5000, "nodes": 1000, "seed": 1}
"""A new run's settings where the command line gives none (a run already started keeps its
own: ``train`` and ``write`` need only ``--run``)."""
"""The settings that make a run's shards what they are: fixed once the run has started."""


def progress_bar() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not sys.stderr.isatty() and not os.environ.get("BLUEGRAY_PROGRESS"),
    )


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    """The run's stored settings, written on its first start and checked on every later one
    (against the settings the command line gives; those it leaves out are the run's)."""
    run: Path = args.run
    run.mkdir(parents=True, exist_ok=True)
    path = run / "run.json"
    given = {name: getattr(args, name) for name in SETTINGS if getattr(args, name) is not None}
    wanted = NEW_RUN_DEFAULTS | given
    if path.exists():
        stored: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        changed = {k: (stored.get(k), v) for k, v in given.items() if stored.get(k) != v}
        if changed:
            details = ", ".join(
                f"{k} was {old!r}, now {new!r}" for k, (old, new) in changed.items()
            )
            raise SystemExit(f"{run} was started with other settings ({details})")
        return stored
    path.write_text(json.dumps(wanted, indent=1) + "\n", encoding="utf-8")
    return wanted


def generate(args: argparse.Namespace) -> None:
    settings = settings_of(args)
    rules = RuleSet.parse(settings["rules"])
    done = set(finished_shards(args.run))
    missing = [i for i in range(args.shards) if i not in done]
    print(f"{len(done)} shards finished, {len(missing)} to play", flush=True)
    shard_args = (rules, settings["positions"], settings["nodes"], settings["seed"], args.kernel)
    with progress_bar() as progress:
        task = progress.add_task("self-play shards", total=args.shards, completed=len(done))

        def finished(index: int) -> None:
            progress.advance(task)
            if progress.disable:  # a log, not a terminal: a line a shard
                count = int(progress.tasks[0].completed)
                print(f"shard {index} written: {count} of {args.shards}", flush=True)

        if args.cluster:
            from network_cluster import shards_on_cluster

            for index, rows in shards_on_cluster(missing, *shard_args, address=args.cluster):
                write_shard(args.run, index, rows)
                finished(index)
            return
        if args.jobs <= 1:
            for index in missing:
                make_shard(args.run, index, *shard_args)
                finished(index)
            return
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(make_shard, args.run, i, *shard_args): i for i in missing}
            for future in as_completed(futures):
                future.result()
                finished(futures[future])


def train(args: argparse.Namespace) -> None:
    settings = settings_of(args)
    shards = finished_shards(args.run)
    if not shards:
        raise SystemExit(f"{args.run} has no finished shards: generate first")
    samples = [s for index in shards for s in read_shard(shard_path(args.run, index))]
    data = as_data(samples, args.mix)
    # Held out: every tenth position's game order is kept out of training (whole shards when
    # there are ten or more).
    if len(shards) >= 10:
        sizes = [settings["positions"]] * len(shards)
        held = np.concatenate(
            [
                np.full(size, index % 10 == 9, dtype=bool)
                for index, size in zip(shards, sizes, strict=True)
            ]
        )[: len(data)]
    else:
        held = np.arange(len(data)) % 10 == 9
    training = data.subset(np.flatnonzero(~held))
    validation = data.subset(np.flatnonzero(held))
    checkpoint = args.run / "checkpoint.npz"
    state = (
        load_state(checkpoint) if checkpoint.exists() else new_state(args.widths, settings["seed"])
    )
    print(
        f"{len(training)} training positions, {len(validation)} held out; "
        f"epoch {state.epoch} of {args.epochs} done",
        flush=True,
    )
    with progress_bar() as progress:
        epochs = progress.add_task("epochs", total=args.epochs, completed=state.epoch)
        while state.epoch < args.epochs:
            batches = progress.add_task(f"epoch {state.epoch + 1}", total=len(training))
            loss = train_epoch(
                state,
                training,
                args.batch,
                args.rate,
                lambda n, batches=batches: progress.advance(batches, n),  # type: ignore[misc]
            )
            progress.remove_task(batches)
            held_out = evaluation_losses(state.parameters, validation) if len(validation) else {}
            earlier = [entry["target"] for entry in state.losses if "target" in entry]
            state.losses.append({"epoch": state.epoch, "train": loss, **held_out})
            if not held_out or held_out["target"] < min(earlier, default=float("inf")):
                save_parameters(args.run / BEST, state.parameters, state.epoch)
            save_state(checkpoint, state)
            progress.advance(epochs)
            print(json.dumps(state.losses[-1]), flush=True)


def write(args: argparse.Namespace) -> Path:
    settings = settings_of(args)
    checkpoint = args.run / "checkpoint.npz"
    if not checkpoint.exists():
        raise SystemExit(f"{args.run} has no trained network: train first")
    state = load_state(checkpoint)
    # The epoch whose network predicted the held-out positions best (early stopping), else the
    # last one.
    parameters, epoch = state.parameters, state.epoch
    if (args.run / BEST).exists():
        parameters, epoch = load_parameters(args.run / BEST)
    network = quantise(float_network(parameters))
    rules = RuleSet.parse(settings["rules"])
    out: Path = args.out or args.run / "network.json"
    training = {**settings, "engine": ENGINE_VERSION, "epochs": state.epoch, "kept_epoch": epoch}
    training |= {"mix": args.mix, "rate": args.rate, "batch": args.batch}
    training["shards"] = len(finished_shards(args.run))
    training["losses"] = state.losses
    write_network(out, network, family(rules), training)
    print(f"wrote {out} ({out.stat().st_size} bytes) for the family {family(rules)}", flush=True)
    return out


def widths(text: str) -> tuple[int, ...]:
    """``--widths``: the accumulator's and the two hidden layers' widths, ``32,8,8``."""
    try:
        found = tuple(int(part) for part in text.split(","))
    except ValueError:
        found = ()
    if len(found) != 3 or min(found) < 1:
        raise argparse.ArgumentTypeError(f"expected three positive widths such as 32,8,8: {text!r}")
    return found


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = top.add_subparsers(dest="command", required=True)
    for name in ("generate", "train", "write", "run"):
        command = commands.add_parser(name)
        command.add_argument("--run", type=Path, required=True, help="the run's folder")
        for setting, meaning, kind in (
            ("rules", "the rule set to play", str),
            ("positions", "positions a shard", int),
            ("nodes", "search nodes a position", int),
            ("seed", "the first shard's seed", int),
        ):
            default = NEW_RUN_DEFAULTS[setting]
            command.add_argument(
                f"--{setting}", type=kind, help=f"{meaning} (a new run: {default}; else the run's)"
            )
        command.add_argument("--shards", type=int, default=40, help="shards the run has")
        command.add_argument("--jobs", type=int, default=1, help="shards played at once")
        command.add_argument(
            "--cluster",
            metavar="ADDRESS",
            help="play the shards on the Ray cluster at HOST:PORT (the cluster extra)",
        )
        command.add_argument("--kernel", choices=("auto", "python", "compiled"), default="auto")
        command.add_argument("--epochs", type=int, default=20)
        command.add_argument("--batch", type=int, default=1024)
        command.add_argument("--rate", type=float, default=1e-3, help="Adam's learning rate")
        command.add_argument(
            "--mix", type=float, default=1.0, help="the search score's share of the target"
        )
        command.add_argument(
            "--widths",
            type=widths,
            default=DEFAULT_WIDTHS,
            help="accumulator,hidden,hidden",
        )
        command.add_argument("--out", type=Path, help="where to write the network file")
    return top


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.command in ("generate", "run"):
        generate(args)
    if args.command in ("train", "run"):
        train(args)
    if args.command in ("write", "run"):
        write(args)


if __name__ == "__main__":
    main()
