"""``/api/rules``: the fourteen presets with their descriptions, the AI levels, and checking a
custom rule set."""

from __future__ import annotations

from fastapi import APIRouter

from bluegray.engine.levels import LEVELS
from bluegray.rules import PRESETS, RuleSet
from bluegray.web.games.schemas import LevelInfo, ParseRulesRequest, RulesInfo, RulesList
from bluegray.web.games.view import cached_rules_info
from bluegray.web.platform.schemas import ErrorResponse

router = APIRouter(prefix="/api/rules", tags=["rules"])


def rules_list() -> RulesList:
    return RulesList(
        presets=[cached_rules_info(rules) for rules in PRESETS.values()],
        levels=[
            LevelInfo(level=level, description=config.description, seconds=config.limits.time)
            for level, config in sorted(LEVELS.items())
        ],
    )


@router.get("", response_model=RulesList, summary="The preset rule sets and the AI levels")
async def list_rules() -> RulesList:
    return rules_list()


@router.post(
    "/parse",
    response_model=RulesInfo,
    summary="Check a rule set given as text",
    responses={422: {"model": ErrorResponse}},
)
async def parse_rules(body: ParseRulesRequest) -> RulesInfo:
    """A preset name, ``key=value`` settings, or a preset with settings overriding it
    (``cooper impasse-plies=50``)."""
    return cached_rules_info(RuleSet.parse(body.text))
