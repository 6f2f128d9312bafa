"""The games' chat: ``/api/games/{id}/chat`` (read and write a game's chat, report a message),
``/api/account/chat`` (the chat turned off, the accounts muted for oneself), the moderators'
mute (``/api/players/{name}/mute``) and their list of reports (``/api/moderation/chat-reports``).
New messages reach the game's sockets as ``{"type": "chat"}`` (docs/web.md)."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from bluegray.pieces import Side
from bluegray.web.accounts.api_tokens import is_api_token
from bluegray.web.accounts.callers import csrf_refusal
from bluegray.web.chat.schemas import (
    ChatLine,
    ChatLog,
    ChatReportList,
    ChatRequest,
    ChatSettings,
    ChatSettingsRequest,
    ReportAnswer,
    ReportDecision,
)
from bluegray.web.chat.service import Chat, Reader
from bluegray.web.deps import (
    AccountService,
    AppSettings,
    CurrentCaller,
    FormCaller,
    GameId,
    Service,
    SignedIn,
    current_caller,
)
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.routers.pages import render_page

router = APIRouter(tags=["chat"])
pages = APIRouter(include_in_schema=False, dependencies=[Depends(current_caller)])

MAX_ID: Final = 2**53 - 1
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (401, 403, 404, 409, 422, 429)
}
PlayerName = Annotated[
    str, Path(min_length=1, max_length=100, description="A player's name, in any case.")
]

_bearer = HTTPBearer(
    auto_error=False,
    description="A seat token, as given when the game was created or joined; or an account's "
    "API token (bgp_...), which plays the account's seats.",
)
"""The same scheme as the games' routes (``deps``): a seat token (in the chat, a player
without an account sends quick messages only), or an account's API token."""


def get_chat(request: Request) -> Chat:
    chat: Chat = request.app.state.chat
    return chat


ChatService = Annotated[Chat, Depends(get_chat)]


async def chat_reader(
    game_id: GameId,
    service: Service,
    caller: CurrentCaller,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Reader:
    """Who reads or writes: the request's account (by its session or API token), and the sides
    it plays, by its account or its seat token."""
    sides: frozenset[Side] = frozenset()
    if credentials is not None and not is_api_token(credentials.credentials):
        sides = await service.authenticate(game_id, credentials.credentials)
    account = caller.player
    if account is not None:
        sides |= await service.account_sides(game_id, account)
    elif caller.refused_csrf and not sides:
        raise csrf_refusal()
    return Reader(account, sides)


ChatReader = Annotated[Reader, Depends(chat_reader)]


@router.get(
    "/api/games/{game_id}/chat",
    response_model=ChatLog,
    summary="A game's chat, as the caller is shown it",
    responses=ERRORS,
)
async def read_chat(game_id: GameId, reader: ChatReader, chat: ChatService) -> ChatLog:
    """Both rooms to spectators; to the game's players their own room, and the spectators'
    once the game is over. Nothing from an account a moderator muted or a closed one, nor from
    those the caller muted; nothing at all if the caller turned the chat off."""
    return await chat.read(game_id, reader)


@router.post(
    "/api/games/{game_id}/chat",
    response_model=ChatLine,
    status_code=201,
    summary="Write in a game's chat",
    responses=ERRORS,
)
async def write_chat(
    game_id: GameId, body: ChatRequest, reader: ChatReader, chat: ChatService
) -> ChatLine:
    """A player writes in the players' room, anyone else in the spectators'. Free text (at most
    140 characters, shown as plain text) from an account only (401 without one); a canned
    message from anyone in the game, a player without an account too. 403 ``chat_muted`` for an
    account a moderator muted, ``chat_off`` for one that turned the chat off; 409 ``chat_full``
    past the game's limit; 429 past the rate."""
    return await chat.send(game_id, reader, body)


@router.post(
    "/api/games/{game_id}/chat/{message_id}/report",
    response_model=ReportAnswer,
    status_code=201,
    summary="Report a chat message to the moderators",
    responses=ERRORS,
)
async def report_message(
    game_id: GameId,
    message_id: Annotated[int, Path(ge=1, le=MAX_ID)],
    reader: ChatReader,
    chat: ChatService,
) -> ReportAnswer:
    """From an account, of a message it is shown (404 otherwise); reporting it again is the
    same report."""
    report_id = await chat.report(game_id, message_id, reader)
    return ReportAnswer(id=report_id, state="open")


# -- the account's choices ----------------------------------------------------------------------


@router.get(
    "/api/account/chat",
    response_model=ChatSettings,
    summary="The account's chat setting and the accounts it muted",
    responses=ERRORS,
)
async def get_chat_settings(account: SignedIn, chat: ChatService) -> ChatSettings:
    return await chat.settings_of(account)


@router.put(
    "/api/account/chat",
    response_model=ChatSettings,
    summary="Turn the games' chat off or on",
    responses=ERRORS,
)
async def set_chat_settings(
    body: ChatSettingsRequest, caller: FormCaller, chat: ChatService
) -> ChatSettings:
    """With the chat off the account is shown no chat, and writes none."""
    return await chat.set_chat_off(caller.signed_in(), body.chat_off)


@router.put(
    "/api/account/chat/muted/{name}",
    response_model=ChatSettings,
    summary="Mute a player for yourself",
    responses=ERRORS,
)
async def mute_player(name: PlayerName, caller: FormCaller, chat: ChatService) -> ChatSettings:
    """Nothing the player writes is shown to this account (to nobody else: that is a
    moderator's mute)."""
    return await chat.mute(caller.signed_in(), name, True)


@router.delete(
    "/api/account/chat/muted/{name}",
    response_model=ChatSettings,
    summary="Unmute a player muted for yourself",
    responses=ERRORS,
)
async def unmute_player(name: PlayerName, caller: FormCaller, chat: ChatService) -> ChatSettings:
    return await chat.mute(caller.signed_in(), name, False)


# -- the moderators ------------------------------------------------------------------------------


@router.post(
    "/api/players/{name}/mute",
    status_code=204,
    summary="Mute a player's chat everywhere (moderators)",
    responses=ERRORS,
)
async def silence_player(name: PlayerName, caller: FormCaller, chat: ChatService) -> Response:
    """Nothing the account writes reaches anyone, in any game (what it wrote before too). 403
    unless the caller is a moderator, from a logged-in browser."""
    await chat.silence(caller.in_session("mute players"), name, True)
    return Response(status_code=204)


@router.post(
    "/api/players/{name}/unmute",
    status_code=204,
    summary="End a moderator's mute of a player (moderators)",
    responses=ERRORS,
)
async def unsilence_player(name: PlayerName, caller: FormCaller, chat: ChatService) -> Response:
    await chat.silence(caller.in_session("unmute players"), name, False)
    return Response(status_code=204)


@router.get(
    "/api/moderation/chat-reports",
    response_model=ChatReportList,
    summary="Reported chat messages, newest first (moderators)",
    responses=ERRORS,
)
async def chat_reports(
    account: SignedIn,
    chat: ChatService,
    state: Annotated[
        Literal["open", "dismissed", "acted", "all"],
        Query(description="Only the reports in this state (``all``: every one)."),
    ] = "open",
) -> ChatReportList:
    """403 unless the caller is a moderator."""
    return ChatReportList(reports=await chat.reports(account, None if state == "all" else state))


@router.post(
    "/api/moderation/chat-reports/{report_id}",
    response_model=ReportAnswer,
    summary="Decide a report: dismiss it, mute its author or close its account (moderators)",
    responses=ERRORS,
)
async def decide_report(
    report_id: Annotated[int, Path(ge=1, le=MAX_ID)],
    body: ReportDecision,
    caller: FormCaller,
    chat: ChatService,
    accounts: AccountService,
) -> ReportAnswer:
    """``close`` closes the author's account as ``/api/players/{name}/close`` does. 409 for a
    message of a player without an account (only ``dismiss`` then)."""
    moderator = caller.in_session("decide reports")
    if body.action == "close":
        await accounts.close(await chat.report_author(moderator, report_id))
    state = await chat.decide(moderator, report_id, body.action)
    return ReportAnswer(id=report_id, state="dismissed" if state == "dismissed" else "acted")


@pages.get("/moderation/chat", response_class=HTMLResponse)
async def moderation_page(
    request: Request, settings: AppSettings, caller: CurrentCaller
) -> HTMLResponse:
    """The moderators' page of reported messages (403 for anyone else)."""
    account = caller.account
    allowed = account is not None and account.moderator
    return render_page(
        request, "moderation_chat.html", settings, status=200 if allowed else 403, allowed=allowed
    )
