"""Rule sets: the settings of docs/rules-reference.md §5 as a frozen value, and the fourteen
published presets.

The move generator reads the settings and never a preset's name, so any combination is playable.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from bluegray.errors import InvalidNumberError, InvalidRulesError, UnknownRulesError, quoted
from bluegray.numerals import parse_number, shown_value
from bluegray.points import PATH_LENGTH


class Captain(enum.Enum):
    """How a captain moves (§3)."""

    STANDARD = "standard"
    """One step along its path."""
    TURBO = "turbo"
    """Slides along its path as far as it can."""


class Soldiers(enum.Enum):
    """What each army's soldiers are at the start (§2)."""

    GUARD = "guard"
    PRIVATE = "private"


class Army(enum.Enum):
    """How many soldiers each side starts with (§2)."""

    FULL = "full"
    """17 soldiers: two full ranks but the captain's point."""
    LIGHT = "light"
    """9 soldiers: one rank."""


class Start(enum.Enum):
    """Where the captains start (§2)."""

    HOME = "home"
    """On their own side, each following its own path."""
    POW = "pow"
    """Behind enemy lines: each captain follows the other side's path."""


class Capture(enum.Enum):
    """Which capture sequences are legal when captures are available (§3)."""

    FREE = "free"
    """Any complete capture sequence."""
    MAXIMAL = "maximal"
    """Only the sequences taking the most pieces available anywhere."""


class Stalemate(enum.Enum):
    """What happens to a side that cannot move (§4 rule 5)."""

    IMPASSE = "impasse"
    LOSS = "loss"


class Impasse(enum.Enum):
    """How an impasse (repetition, no progress, or stalemate under ``impasse``) is decided (§4)."""

    ADVANCE = "advance"
    """The side whose captain is farther advanced wins; equal advancement draws."""
    DRAW = "draw"


DEFAULT_IMPASSE_PLIES: Final = 100
MAX_LEAD: Final = PATH_LENGTH
"""The largest ``lead``: the length of a path (17). A lead of 17 never decides a game, since the
leader would stand on the centre, which wins first; anything larger could not even be reached."""
MAX_IMPASSE_PLIES: Final = 1000
"""The largest ``impasse-plies``, ten times the default. Checking a position for repetition looks
back over the plies since the last progress, so this bound keeps that look-back (and so reading
a long record, or searching late in a long game) short; a game of more than a thousand plies
without progress has no use for the rule it turns off."""
_MOST: Final = {"lead": MAX_LEAD, "impasse_plies": MAX_IMPASSE_PLIES}


@dataclass(frozen=True)
class RuleSet:
    """One combination of the settings of docs/rules-reference.md §5; the defaults are
    Sackson's rules.

    >>> RuleSet.parse("cooper").lead
    3
    >>> str(RuleSet(captain=Captain.TURBO)).split()[:3]
    ['captain=turbo', 'soldiers=guard', 'army=full']
    """

    captain: Captain = Captain.STANDARD
    soldiers: Soldiers = Soldiers.GUARD
    army: Army = Army.FULL
    start: Start = Start.HOME
    lead: int | None = None
    capture: Capture = Capture.FREE
    stalemate: Stalemate = Stalemate.IMPASSE
    impasse: Impasse = Impasse.ADVANCE
    impasse_plies: int = DEFAULT_IMPASSE_PLIES

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            kind = _SETTING_TYPES[field.name]
            if (
                isinstance(kind, type)
                and issubclass(kind, enum.Enum)
                and not isinstance(value, kind)
            ):
                raise InvalidRulesError(
                    f"invalid rule set: {field.name} must be a {kind.__name__}, not {value!r}"
                )
        for name, most in _MOST.items():
            value = getattr(self, name)
            if value is None and name == "lead":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
                raise InvalidRulesError(
                    f"invalid rule set: {name.replace('_', '-')} must be "
                    + ("none or " if name == "lead" else "")
                    + f"a whole number from 1 to {most}, not {shown_value(value)}"
                )

    @property
    def name(self) -> str | None:
        """The name of the published rule set with exactly these settings, or ``None``."""
        return _NAME_BY_RULES.get(self)

    @property
    def description(self) -> str:
        """A one-line description of the rule set for people choosing one."""
        name = self.name
        if name is not None:
            return PRESET_DESCRIPTIONS[name]
        return "Custom rule set: " + self.settings_text()

    def settings(self) -> dict[str, str]:
        """Every setting by its name in docs/rules-reference.md §5 (``impasse-plies`` with a
        hyphen), as text."""
        result = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, enum.Enum):
                text = str(value.value)
            elif value is None:
                text = "none"
            else:
                text = str(value)
            result[field.name.replace("_", "-")] = text
        return result

    def settings_text(self) -> str:
        """All settings as ``key=value`` words: the text of a custom rule set."""
        return " ".join(f"{key}={value}" for key, value in self.settings().items())

    def __str__(self) -> str:
        return self.name or self.settings_text()

    def replace(self, **changes: object) -> RuleSet:
        """A copy with some settings changed (keyword names as the dataclass fields)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def parse(cls, text: str) -> RuleSet:
        """A rule set from its name or its settings, the exact inverse of ``str()``.

        Accepts a preset name (``"cooper"``), ``key=value`` settings (missing ones take Sackson's
        values), or a preset name followed by settings that override it
        (``"cooper impasse-plies=50"``).
        """
        words = text.replace(",", " ").split()
        if not words:
            raise UnknownRulesError(f"empty rule-set name; known rule sets: {', '.join(PRESETS)}")
        base = SACKSON
        if "=" not in words[0]:
            base = rules_by_name(words[0])
            words = words[1:]
        changes: dict[str, object] = {}
        for word in words:
            key, sep, value = word.partition("=")
            if not sep:
                raise InvalidRulesError(
                    f"invalid rule-set setting {quoted(word)} in {quoted(text)}: expected key=value"
                )
            field = key.replace("-", "_")
            if field not in _SETTING_TYPES:
                raise InvalidRulesError(
                    f"unknown rule-set setting {quoted(key)} in {quoted(text)}; settings are: "
                    + ", ".join(name.replace("_", "-") for name in _SETTING_TYPES)
                )
            if field in changes:
                raise InvalidRulesError(
                    f"rule-set setting {quoted(key)} given twice in {quoted(text)}"
                )
            changes[field] = _parse_setting(field, value, text)
        return base.replace(**changes) if changes else base


_SETTING_TYPES: Final[Mapping[str, object]] = {
    "captain": Captain,
    "soldiers": Soldiers,
    "army": Army,
    "start": Start,
    "lead": int,
    "capture": Capture,
    "stalemate": Stalemate,
    "impasse": Impasse,
    "impasse_plies": int,
}


def _parse_setting(field: str, value: str, text: str) -> object:
    kind = _SETTING_TYPES[field]
    key = field.replace("_", "-")
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        try:
            return kind(value)
        except ValueError:
            choices = ", ".join(str(member.value) for member in kind)
            raise InvalidRulesError(
                f"invalid value {quoted(value)} for rule-set setting {quoted(key)} in "
                f"{quoted(text)}; choose one of: {choices}"
            ) from None
    if field == "lead" and value == "none":
        return None
    try:
        return parse_number(value, least=1, most=_MOST[field])
    except InvalidNumberError:
        none = "none or " if field == "lead" else ""
        raise InvalidRulesError(
            f"invalid value {quoted(value)} for rule-set setting {quoted(key)} in "
            f"{quoted(text)}: expected {none}a whole number from 1 to {_MOST[field]}"
        ) from None


SACKSON: Final = RuleSet()


def _hutnik(captain: Captain, soldiers: Soldiers, army: Army, start: Start) -> RuleSet:
    return RuleSet(
        captain=captain,
        soldiers=soldiers,
        army=army,
        start=start,
        lead=3 if captain is Captain.STANDARD else None,
        capture=Capture.MAXIMAL,
        stalemate=Stalemate.LOSS,
        impasse=Impasse.DRAW,
    )


_S, _T = Captain.STANDARD, Captain.TURBO
_G, _P = Soldiers.GUARD, Soldiers.PRIVATE
_F, _L = Army.FULL, Army.LIGHT
_H, _W = Start.HOME, Start.POW

PRESETS: Final[Mapping[str, RuleSet]] = {
    "sackson": SACKSON,
    "cooper": RuleSet(lead=3, stalemate=Stalemate.LOSS, impasse=Impasse.DRAW),
    "super": _hutnik(_S, _P, _F, _H),
    "super-light": _hutnik(_S, _P, _L, _H),
    "super-turbo": _hutnik(_T, _P, _F, _H),
    "super-light-turbo": _hutnik(_T, _P, _L, _H),
    "classic": _hutnik(_S, _G, _F, _H),
    "classic-light": _hutnik(_S, _G, _L, _H),
    "classic-turbo": _hutnik(_T, _G, _F, _H),
    "classic-light-turbo": _hutnik(_T, _G, _L, _H),
    "pow-super": _hutnik(_T, _P, _F, _W),
    "pow-super-light": _hutnik(_T, _P, _L, _W),
    "pow-classic": _hutnik(_T, _G, _F, _W),
    "pow-classic-light": _hutnik(_T, _G, _L, _W),
}
"""The fourteen published rule sets of docs/rules-reference.md §5, by name; ``sackson`` is the
default."""

_NAME_BY_RULES: Final = {rules: name for name, rules in PRESETS.items()}

PRESET_DESCRIPTIONS: Final[Mapping[str, str]] = {
    "sackson": "Sackson's 1969 rules: guards, free capture; an impasse goes to the captain "
    "farther along its path.",
    "cooper": "Roger Cooper's Zillions rules: a captain three steps ahead wins; impasses draw.",
    "super": "Hutnik's Super Blue and Gray: privates that promote on the far rank, maximal "
    "capture, lead of three wins.",
    "super-light": "Super with one rank of privates a side: a more open board.",
    "super-turbo": "Super with turbo captains that slide along their paths; no lead rule.",
    "super-light-turbo": "Super with one rank of privates and turbo captains.",
    "classic": "Hutnik's classic game: guards, maximal capture, lead of three wins.",
    "classic-light": "Classic with one rank of guards a side.",
    "classic-turbo": "Classic with turbo captains that slide along their paths; no lead rule.",
    "classic-light-turbo": "Classic with one rank of guards and turbo captains.",
    "pow-super": "Captains start behind enemy lines on the other side's path; privates, turbo "
    "captains.",
    "pow-super-light": "POW with privates and one rank a side.",
    "pow-classic": "Captains start behind enemy lines on the other side's path; guards, turbo "
    "captains.",
    "pow-classic-light": "POW with guards and one rank a side.",
}

DEFAULT_RULES_NAME: Final = "sackson"


def rules_by_name(name: str) -> RuleSet:
    """The published rule set called ``name`` (see :data:`PRESETS`)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise UnknownRulesError(
            f"unknown rule set {quoted(name)}; known rule sets: {', '.join(PRESETS)}"
        ) from None


def as_rules(rules: RuleSet | str | None) -> RuleSet:
    """Accept a rule set, its text (name or settings), or ``None`` for the default."""
    if rules is None:
        return SACKSON
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, str):
        return RuleSet.parse(rules)
    raise InvalidRulesError(f"expected a rule set or its name, not {rules!r}")
