"""Passwords, hashed with Argon2id (argon2-cffi, the reference implementation's maintained Python
binding) at pinned parameters: RFC 9106's recommendation for memory-constrained servers, 64 MiB,
3 passes, 4 lanes (about 0.1-0.2 s on one core). The parameters are written here rather than
taken from the library's defaults, so that a new version of the library cannot change them
unnoticed; a stored hash made with other parameters is re-hashed at the next good login.

Hashing runs in threads (the library releases the interpreter lock), at most ``HASHING_AT_ONCE``
at a time in a process, so that a burst of logins costs bounded memory and leaves cores for the
games; the login rate limits bound how long the queue can grow.

An unknown name is checked against a dummy hash made with the same parameters, so that a login
with an unknown name takes as long as one with a wrong password (no account enumeration by
timing).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Final

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError
from zxcvbn.frequency_lists import FREQUENCY_LISTS

TIME_COST: Final = 3
"""Passes over the memory (RFC 9106, section 4, second recommended option)."""
MEMORY_KIB: Final = 64 * 1024
"""Memory per hash: 64 MiB."""
LANES: Final = 4
"""Parallelism."""
HASH_BYTES: Final = 32
SALT_BYTES: Final = 16
HASHING_AT_ONCE: Final = 2
"""Hashes computed at once in one process (each takes ``MEMORY_KIB`` while it runs)."""

MIN_LENGTH: Final = 8
MAX_LENGTH: Final = 256
"""A password's length in characters (NIST SP 800-63B: at least 8, and long ones allowed; no
rules about which characters)."""


@functools.cache
def _common_passwords() -> frozenset[str]:
    return frozenset(word.strip().lower() for word in FREQUENCY_LISTS["passwords"])


def is_common(password: str) -> bool:
    """Whether a password is one of the 30,000 most common (zxcvbn's list, which ships with the
    package: checked offline), compared after trimming and in any case, as NIST SP 800-63B
    asks of a list of passwords known to be weak."""
    return password.strip().lower() in _common_passwords()


HASHER: Final = PasswordHasher(
    time_cost=TIME_COST,
    memory_cost=MEMORY_KIB,
    parallelism=LANES,
    hash_len=HASH_BYTES,
    salt_len=SALT_BYTES,
    type=Type.ID,
)


@functools.cache
def dummy_hash() -> str:
    """The hash an unknown name's password is checked against (made once, when first needed)."""
    return HASHER.hash("bluegray: the hash an unknown name is checked against")


def hash_now(password: str) -> str:
    """The stored form of a password (``$argon2id$v=19$m=65536,t=3,p=4$salt$hash``)."""
    return HASHER.hash(password)


def verify_now(stored: str, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (a malformed hash: no)."""
    try:
        return HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    """Whether a stored hash was made with other parameters than today's."""
    try:
        return HASHER.check_needs_rehash(stored)
    except InvalidHashError:
        return True


class Hashing:
    """A process's password hashing: in threads (the library releases the interpreter lock), at
    most ``HASHING_AT_ONCE`` at a time."""

    def __init__(self) -> None:
        self._slots: asyncio.Semaphore | None = None

    def _held(self) -> asyncio.Semaphore:
        if self._slots is None:  # made on the event loop that uses it
            self._slots = asyncio.Semaphore(HASHING_AT_ONCE)
        return self._slots

    async def hash(self, password: str) -> str:
        """``hash_now`` in a thread."""
        async with self._held():
            return await asyncio.to_thread(hash_now, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """``verify_now`` in a thread; with no stored hash (an unknown name) the password is
        checked against ``dummy_hash()`` anyway, so that both take the same time, and the answer
        is no."""
        async with self._held():
            if stored is None:
                await asyncio.to_thread(verify_now, dummy_hash(), password)
                return False
            return await asyncio.to_thread(verify_now, stored, password)
