"""Sending email: one message at a time to the SMTP server of the settings, with the standard
library's ``smtplib`` (STARTTLS, TLS from the start, or plain for a local relay), run in a thread
so that the event loop never waits on the mail server.

Why ``smtplib``: it is maintained with Python itself, speaks everything a mail server asks
(STARTTLS, SMTPS, AUTH), and a notification is one short message now and then, so a thread per
message costs nothing worth an extra dependency (``aiosmtplib`` would save that thread only).
What must not be lost is kept elsewhere: a message is due as a durable timer (``notices``), and
is tried again until the mail server takes it.
"""

from __future__ import annotations

import asyncio
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from bluegray.errors import BlueGrayError
from bluegray.web.platform.settings import Settings


class MailError(BlueGrayError):
    """The mail server did not take a message (it is tried again later)."""


def compose(settings: Settings, to: str, subject: str, text: str) -> EmailMessage:
    """A plain-text message from the site's sender."""
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain="bluegray")
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(text)
    return message


def send_now(settings: Settings, message: EmailMessage) -> None:
    """Hand ``message`` to the mail server (blocking: call it in a thread); ``MailError`` if the
    server cannot be reached or refuses it."""
    host, port, timeout = settings.smtp_host, settings.smtp_port, settings.smtp_timeout_seconds
    try:
        server: smtplib.SMTP
        if settings.smtp_security == "ssl":
            server = smtplib.SMTP_SSL(
                host, port, timeout=timeout, context=ssl.create_default_context()
            )
        else:
            server = smtplib.SMTP(host, port, timeout=timeout)
        with server:
            if settings.smtp_security == "starttls":
                server.starttls(context=ssl.create_default_context())
            if settings.smtp_user:
                server.login(settings.smtp_user, settings.smtp_password)
            server.send_message(message)
    except (OSError, smtplib.SMTPException) as error:
        raise MailError(f"cannot send to {message['To']} through {host}:{port}: {error}") from None


async def send(settings: Settings, message: EmailMessage) -> None:
    """``send_now`` in a thread."""
    await asyncio.to_thread(send_now, settings, message)
