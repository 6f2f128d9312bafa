"""Rule sets: settings, the fourteen presets and custom combinations (docs/rules-reference.md §5)."""

from __future__ import annotations

import pytest

from bluegray.errors import InvalidRulesError, UnknownRulesError
from bluegray.rules import (
    PRESETS,
    SACKSON,
    Army,
    Captain,
    Capture,
    Impasse,
    RuleSet,
    Soldiers,
    Stalemate,
    Start,
    as_rules,
    rules_by_name,
)

# The table of docs/rules-reference.md §5, row by row.
TABLE = """\
sackson standard guard full home none free impasse advance
cooper standard guard full home 3 free loss draw
super standard private full home 3 maximal loss draw
super-light standard private light home 3 maximal loss draw
super-turbo turbo private full home none maximal loss draw
super-light-turbo turbo private light home none maximal loss draw
classic standard guard full home 3 maximal loss draw
classic-light standard guard light home 3 maximal loss draw
classic-turbo turbo guard full home none maximal loss draw
classic-light-turbo turbo guard light home none maximal loss draw
pow-super turbo private full pow none maximal loss draw
pow-super-light turbo private light pow none maximal loss draw
pow-classic turbo guard full pow none maximal loss draw
pow-classic-light turbo guard light pow none maximal loss draw
"""


@pytest.mark.parametrize("row", TABLE.splitlines())
def test_presets_match_the_rules_table(row: str) -> None:
    name, captain, soldiers, army, start, lead, capture, stalemate, impasse = row.split()
    rules = rules_by_name(name)
    assert rules == RuleSet(
        captain=Captain(captain),
        soldiers=Soldiers(soldiers),
        army=Army(army),
        start=Start(start),
        lead=None if lead == "none" else int(lead),
        capture=Capture(capture),
        stalemate=Stalemate(stalemate),
        impasse=Impasse(impasse),
        impasse_plies=100,
    )
    assert rules.name == name
    assert str(rules) == name
    assert RuleSet.parse(name) is rules


def test_fourteen_presets_all_different() -> None:
    assert len(PRESETS) == 14
    assert len(set(PRESETS.values())) == 14
    assert SACKSON == RuleSet() == as_rules(None) == as_rules("sackson")


def test_custom_rule_set_text_round_trips() -> None:
    rules = RuleSet(captain=Captain.TURBO, lead=5, impasse_plies=40)
    assert rules.name is None
    text = str(rules)
    assert text.startswith("captain=turbo ")
    assert "lead=5" in text and "impasse-plies=40" in text
    assert RuleSet.parse(text) == rules
    assert rules.description.startswith("Custom rule set: ")


def test_preset_with_overrides() -> None:
    rules = RuleSet.parse("cooper impasse-plies=50")
    assert rules == PRESETS["cooper"].replace(impasse_plies=50)
    assert rules.name is None
    assert RuleSet.parse("cooper lead=none capture=maximal").lead is None
    # Overriding a setting with its own value gives the preset back.
    assert RuleSet.parse("super lead=3").name == "super"


def test_settings_default_to_sackson() -> None:
    assert RuleSet.parse("lead=3 stalemate=loss impasse=draw") == PRESETS["cooper"]


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("", UnknownRulesError, "empty rule-set name"),
        ("sackson2", UnknownRulesError, "unknown rule set 'sackson2'; known rule sets: sackson"),
        ("captain", UnknownRulesError, "unknown rule set 'captain'"),
        ("sackson captain", InvalidRulesError, "invalid rule-set setting 'captain'"),
        ("captain=fast", InvalidRulesError, "invalid value 'fast' for rule-set setting 'captain'"),
        ("colour=blue", InvalidRulesError, "unknown rule-set setting 'colour'"),
        ("lead=0", InvalidRulesError, "expected none or a whole number from 1 to 17"),
        ("lead=-1", InvalidRulesError, "expected none or a whole number"),
        ("lead=18", InvalidRulesError, "expected none or a whole number from 1 to 17"),
        ("impasse-plies=0", InvalidRulesError, "expected a whole number from 1 to 1000"),
        ("impasse-plies=many", InvalidRulesError, "expected a whole number"),
        ("impasse-plies=1001", InvalidRulesError, "'1001' for rule-set setting"),
        ("sackson impasse-plies=" + "9" * 30, InvalidRulesError, "from 1 to 1000"),
        pytest.param(
            "lead=" + "9" * 5000,
            InvalidRulesError,
            "expected none or a whole number from 1",
            id="5000-digit lead",
        ),
        ("impasse-plies=\u0661", InvalidRulesError, "expected a whole number"),
        ("lead=3 lead=4", InvalidRulesError, "given twice"),
    ],
)
def test_bad_rule_sets(text: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        RuleSet.parse(text)
    assert message in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_the_largest_lead_and_impasse_plies_are_read() -> None:
    rules = RuleSet.parse("cooper lead=17 impasse-plies=1000")
    assert (rules.lead, rules.impasse_plies) == (17, 1000)
    assert RuleSet.parse(str(rules)) == rules


def test_bad_values_in_the_constructor() -> None:
    with pytest.raises(InvalidRulesError, match="captain must be a Captain"):
        RuleSet(captain="turbo")  # type: ignore[arg-type]
    with pytest.raises(InvalidRulesError, match="lead must be"):
        RuleSet(lead=True)
    with pytest.raises(InvalidRulesError, match="from 1 to 1000, not 1001"):
        RuleSet(impasse_plies=1001)
    with pytest.raises(InvalidRulesError, match="not a number of about 5,001 digits"):
        RuleSet(lead=10**5000)  # too long for Python to print: described, not shown
    with pytest.raises(InvalidRulesError, match="expected a rule set"):
        as_rules(3)  # type: ignore[arg-type]


def test_rule_sets_are_frozen_and_hashable() -> None:
    rules = PRESETS["classic"]
    with pytest.raises(AttributeError):
        rules.lead = 4  # type: ignore[misc]
    assert {rules: 1}[RuleSet.parse("classic")] == 1
    assert all(description for description in (r.description for r in PRESETS.values()))
