"""``/api/account`` (signing up, logging in and out, the password, claiming a browser's games, API
tokens, becoming a bot) and ``/api/players/{name}`` (public profiles; moderators close accounts).

Every change here follows ``callers.check_form``: from this site only, and with the CSRF token
when the request carries the site's cookies. A session lives in the ``bluegray_session`` cookie
(HttpOnly, SameSite=Lax, Secure over HTTPS or with ``BLUEGRAY_SECURE_COOKIES``), with a new id
at every login.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Path, Query, Request, Response

from bluegray.web.accounts.api_tokens import TokenInfo as StoredToken
from bluegray.web.accounts.notifications import Preferences, preferences, store_preferences
from bluegray.web.accounts.players import Account
from bluegray.web.accounts.schemas import (
    AccountInfo,
    AccountState,
    ChangePasswordRequest,
    ClaimedGames,
    LogInRequest,
    NewToken,
    NotificationRequest,
    NotificationSettings,
    PlayerProfile,
    RatedPair,
    RatedPairList,
    SignUpRequest,
    TokenInfo,
    TokenList,
    TokenRequest,
)
from bluegray.web.accounts.sessions import SESSION_COOKIE, SESSION_MS, csrf_token
from bluegray.web.deps import (
    AccountService,
    Address,
    AppSettings,
    BeforeId,
    Browser,
    CurrentCaller,
    FormCaller,
    Service,
    SignedIn,
    browser_secret,
    secure_cookies,
)
from bluegray.web.games.player_games import game_counts, player_games
from bluegray.web.games.rated_pairs import DAY_MS
from bluegray.web.games.schemas import PlayerGames, YourTurn
from bluegray.web.games.turns import your_turn
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.refusals import Forbidden, Invalid, NotFound
from bluegray.web.platform.schemas import ErrorResponse
from bluegray.web.platform.security import COOKIE_MAX_AGE, DEVICE_COOKIE
from bluegray.web.platform.settings import Settings
from bluegray.web.ratings.leaderboards import player_ratings

router = APIRouter(tags=["accounts"])

MAX_MS: Final = 2**53 - 1
PROFILE_GAMES: Final = 20
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (401, 403, 404, 409, 422, 429)
}

PlayerName = Annotated[
    str, Path(min_length=1, max_length=100, description="A player's name, in any case.")
]


def account_info(account: Account) -> AccountInfo:
    return AccountInfo(
        name=account.name,
        created_ms=account.created_ms,
        bot=account.bot,
        moderator=account.moderator,
        profile=f"/player/{account.name}",
    )


def _set_session(request: Request, response: Response, session_id: str, settings: Settings) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        session_id,
        max_age=SESSION_MS // 1000,
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request, settings),
        path="/",
    )


def _clear_session(request: Request, response: Response, settings: Settings) -> None:
    response.delete_cookie(
        SESSION_COOKIE,
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request, settings),
        path="/",
    )


async def _logged_in(
    accounts: AccountService,
    account: Account,
    request: Request,
    response: Response,
    settings: Settings,
    browser: str,
    claim: bool,
) -> AccountState:
    """Start a new session for the account (the browser's old one ends: a session id never
    changes hands at login), and claim the browser's games if asked."""
    session_id = await accounts.sessions.start(
        account.id, replacing=request.cookies.get(SESSION_COOKIE)
    )
    _set_session(request, response, session_id, settings)
    response.set_cookie(
        DEVICE_COOKIE,
        await accounts.remember_device(account, request.cookies.get(DEVICE_COOKIE)),
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request, settings),
        path="/",
    )
    if claim and not account.bot:
        await accounts.claim_games(account, browser)
    unclaimed = 0 if account.bot else len(await accounts.unclaimed(browser))
    return AccountState(
        account=account_info(account), csrf_token=csrf_token(session_id), unclaimed_games=unclaimed
    )


@router.get(
    "/api/account", response_model=AccountState, summary="Who is logged in here", responses=ERRORS
)
async def get_account(
    caller: CurrentCaller, accounts: AccountService, request: Request, browser: Browser
) -> AccountState:
    """The account of the session cookie (or API token), the CSRF token to send with changes,
    and how many of this browser's games no account holds yet."""
    csrf = caller.csrf
    if csrf is None and caller.via != "token":
        csrf = _browser_csrf(request)
    return AccountState(
        account=None if caller.account is None else account_info(caller.account),
        csrf_token=csrf,
        unclaimed_games=len(await accounts.unclaimed(browser)),
    )


def _browser_csrf(request: Request) -> str | None:
    """The CSRF token of the browser's id (the one this very answer gives it, if it had none)."""
    secret = browser_secret(request)
    return None if secret is None else csrf_token(secret)


@router.post(
    "/api/account/signup",
    response_model=AccountState,
    status_code=201,
    summary="Make an account and log in",
    responses=ERRORS,
)
async def sign_up(
    body: SignUpRequest,
    caller: FormCaller,
    accounts: AccountService,
    request: Request,
    response: Response,
    settings: AppSettings,
    browser: Browser,
    address: Address,
) -> AccountState:
    """409 ``name_taken`` (in any case), 422 ``invalid_name`` or ``invalid_password``, 429 past
    the limit of new accounts per address."""
    account = await accounts.sign_up(body.name, body.password, address)
    return await _logged_in(
        accounts, account, request, response, settings, browser, body.claim_games
    )


@router.post(
    "/api/account/login",
    response_model=AccountState,
    summary="Log in (a new session)",
    responses=ERRORS,
)
async def log_in(
    body: LogInRequest,
    caller: FormCaller,
    accounts: AccountService,
    request: Request,
    response: Response,
    settings: AppSettings,
    browser: Browser,
    address: Address,
) -> AccountState:
    """401 ``login_failed`` ("wrong name or password") whatever was wrong; 429 (with the
    seconds to wait) after too many failures for the name (from anywhere but a browser that has
    logged in to it before) or from the address."""
    account = await accounts.log_in(
        body.name, body.password, address, request.cookies.get(DEVICE_COOKIE)
    )
    return await _logged_in(
        accounts, account, request, response, settings, browser, body.claim_games
    )


@router.post(
    "/api/account/logout", response_model=AccountState, summary="Log out", responses=ERRORS
)
async def log_out(
    caller: FormCaller,
    accounts: AccountService,
    request: Request,
    response: Response,
    settings: AppSettings,
    browser: Browser,
) -> AccountState:
    """Ends this session on every process."""
    if caller.session_id is not None:
        await accounts.sessions.end(caller.session_id)
    _clear_session(request, response, settings)
    return AccountState(
        account=None,
        csrf_token=_browser_csrf(request),
        unclaimed_games=len(await accounts.unclaimed(browser)),
    )


@router.post(
    "/api/account/password",
    response_model=AccountState,
    summary="Change the password",
    responses=ERRORS,
)
async def change_password(
    body: ChangePasswordRequest,
    caller: FormCaller,
    accounts: AccountService,
    request: Request,
    response: Response,
    settings: AppSettings,
    browser: Browser,
) -> AccountState:
    """From a logged-in browser: every session of the account ends (on every process), and this
    browser gets a new one. API tokens stay. 403 ``wrong_password``."""
    account = caller.in_session("change the password")
    await accounts.change_password(account, body.current_password, body.new_password)
    await accounts.sessions.end_all(account.id)
    return await _logged_in(accounts, account, request, response, settings, browser, False)


@router.post(
    "/api/account/claim",
    response_model=ClaimedGames,
    summary="Add this browser's games to the account",
    responses=ERRORS,
)
async def claim_games(
    caller: FormCaller, accounts: AccountService, browser: Browser
) -> ClaimedGames:
    """The games played in this browser without an account (its list of games) become the
    account's: its seats in them carry its name, everywhere."""
    account = caller.signed_in()
    return ClaimedGames(claimed=await accounts.claim_games(account, browser))


@router.post(
    "/api/account/bot",
    response_model=AccountInfo,
    summary="Make this a bot's account (for good)",
    responses=ERRORS,
)
async def become_bot(caller: FormCaller, accounts: AccountService) -> AccountInfo:
    """Only before the account has played a game (409 after), and from a logged-in browser
    (403 with an API token). A bot plays through the API with its token; its session plays
    nothing from the pages."""
    return account_info(await accounts.make_bot(caller.in_session("make an account a bot's")))


@router.get(
    "/api/account/turn",
    response_model=YourTurn,
    summary="Your turn: the games waiting for the account's move",
    responses=ERRORS,
)
async def games_to_move(account: SignedIn, accounts: AccountService) -> YourTurn:
    """The account's running games (with a person or the AI) where it is its move, the most
    urgent first: the nearest deadline (a correspondence game's, or a running clock's flag),
    then the games without a time limit."""
    return await your_turn(accounts.db, account.id, now_ms())


def _notifications(chosen: Preferences, settings: Settings) -> NotificationSettings:
    return NotificationSettings(
        email=chosen.email, turn=chosen.turn, time=chosen.time, mail_enabled=settings.mail_enabled
    )


@router.get(
    "/api/account/notifications",
    response_model=NotificationSettings,
    summary="The account's email address and notices",
    responses=ERRORS,
)
async def get_notifications(
    account: SignedIn, accounts: AccountService, settings: AppSettings
) -> NotificationSettings:
    return _notifications(await preferences(accounts.db, account.id), settings)


@router.put(
    "/api/account/notifications",
    response_model=NotificationSettings,
    summary="Set the account's email address and notices",
    responses=ERRORS,
)
async def set_notifications(
    body: NotificationRequest, caller: FormCaller, accounts: AccountService, settings: AppSettings
) -> NotificationSettings:
    """The address replaces the stored one (none: no address, and no notices). 422
    ``invalid_request`` for an address that is not one, or a notice asked for without an
    address; 403 with an API token (from a logged-in browser only)."""
    account = caller.in_session("set the email and notices")
    if (body.turn or body.time) and body.email is None:
        raise Invalid("invalid_request", "email notices need an email address")
    chosen = Preferences(body.email, body.turn, body.time)
    await store_preferences(accounts.db, account.id, chosen)
    return _notifications(chosen, settings)


# -- tokens ----------------------------------------------------------------------------------------


def _token(info: StoredToken) -> TokenInfo:
    return TokenInfo(
        id=info.id,
        description=info.description,
        created_ms=info.created_ms,
        last_used_ms=info.last_used_ms,
    )


@router.get(
    "/api/account/tokens",
    response_model=TokenList,
    summary="The account's API tokens",
    responses=ERRORS,
)
async def list_tokens(account: SignedIn, accounts: AccountService) -> TokenList:
    return TokenList(tokens=[_token(info) for info in await accounts.tokens.held_by(account)])


@router.post(
    "/api/account/tokens",
    response_model=NewToken,
    status_code=201,
    summary="A new API token (shown once)",
    responses=ERRORS,
)
async def create_token(
    body: TokenRequest, caller: FormCaller, accounts: AccountService
) -> NewToken:
    """From a logged-in browser (a token cannot make tokens). Send it as
    ``Authorization: Bearer bgp_...``; only its digest is kept."""
    account = caller.in_session("make tokens")
    info, token = await accounts.tokens.create(account, body.description)
    return NewToken(token=token, info=_token(info))


@router.delete(
    "/api/account/tokens/{token_id}",
    status_code=204,
    summary="Revoke an API token",
    responses=ERRORS,
)
async def revoke_token(
    token_id: Annotated[int, Path(ge=1, le=MAX_MS)], caller: FormCaller, accounts: AccountService
) -> Response:
    """From a logged-in browser (403 with an API token)."""
    await accounts.tokens.revoke(caller.in_session("revoke tokens"), token_id)
    return Response(status_code=204)


# -- players -------------------------------------------------------------------------------------


async def _player(accounts: AccountService, name: str) -> Account:
    account = await accounts.by_name(name)
    if account is None:
        raise NotFound("not_found", "no player of that name")
    return account


@router.get(
    "/api/players/{name}",
    response_model=PlayerProfile,
    summary="A player's public profile",
    responses=ERRORS,
)
async def profile(name: PlayerName, accounts: AccountService) -> PlayerProfile:
    """Ratings (one per rule set and time class, with their history), recent games, and wins,
    draws and losses against people and against the AI."""
    account = await _player(accounts, name)
    people, ai = await game_counts(accounts.db, account.id)
    ratings = await player_ratings(accounts.db, account.id, now_ms())
    recent = await player_games(accounts.db, account.id, PROFILE_GAMES, None)
    return PlayerProfile(
        name=account.name,
        created_ms=account.created_ms,
        bot=account.bot,
        closed=account.closed,
        against_people=people,
        against_ai=ai,
        ratings=ratings,
        recent_games=recent.games,
        next_before_ms=recent.next_before_ms,
        next_before_id=recent.next_before_id,
    )


@router.get(
    "/api/players/{name}/games",
    response_model=PlayerGames,
    summary="A player's games, newest first",
    responses=ERRORS,
)
async def games_of_player(
    name: PlayerName,
    accounts: AccountService,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    before_ms: Annotated[int | None, Query(ge=0, le=MAX_MS)] = None,
    before_id: BeforeId = None,
) -> PlayerGames:
    account = await _player(accounts, name)
    return await player_games(accounts.db, account.id, limit, before_ms, before_id)


@router.post(
    "/api/players/{name}/close",
    status_code=204,
    summary="Close a player's account (moderators)",
    responses=ERRORS,
)
async def close_player(name: PlayerName, caller: FormCaller, accounts: AccountService) -> Response:
    """Its sessions and tokens end at once everywhere; it cannot log in again; its games stay.
    403 unless the caller is a moderator, from a logged-in browser (not with an API token)."""
    moderator = caller.in_session("close accounts")
    if not moderator.moderator:
        raise Forbidden("forbidden", "only a moderator can close an account")
    await accounts.close(await _player(accounts, name))
    return Response(status_code=204)


@router.get(
    "/api/moderation/rated-pairs",
    response_model=RatedPairList,
    summary="Pairs of accounts that reached the daily limit of rated games together (moderators)",
    responses=ERRORS,
)
async def rated_pairs(
    account: SignedIn,
    service: Service,
    settings: AppSettings,
    days: Annotated[int, Query(ge=1, le=365, description="How many days back to look.")] = 7,
) -> RatedPairList:
    """Two accounts that keep playing each other may be farming a rating: past
    ``BLUEGRAY_RATED_GAMES_PER_PAIR`` rated games a day their games are unrated, and they are
    listed here. 403 unless the caller is a moderator."""
    if not account.moderator:
        raise Forbidden("forbidden", "only a moderator can see this list")
    since = now_ms() - days * DAY_MS
    pairs = await service.capped_pairs(since)
    return RatedPairList(
        since_ms=since,
        per_day=settings.rated_games_per_pair,
        pairs=[
            RatedPair(
                first=pair.first,
                second=pair.second,
                rated_games=pair.rated,
                unrated_games=pair.unrated,
                last_ms=pair.last_ms,
            )
            for pair in pairs
        ],
    )
