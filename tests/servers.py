"""Real servers for the tests: PostgreSQL, Redis and reverse proxies (nginx, and Caddy running
the shipped ``deploy/Caddyfile``), each on a free loopback port in a temporary directory of its
own, and stopped for real at the end.

- ``PostgresServer``: Debian's PostgreSQL (``/usr/lib/postgresql/<version>/bin``) in a fresh
  cluster. PostgreSQL refuses to run as root, so as root the cluster belongs to the ``postgres``
  user. fsync is off: a test never survives a power cut. ``new_database()`` makes an empty
  database, so that every test starts from nothing.
- ``RedisServer``: ``redis-server`` with no persistence.
- ``ReverseProxy``: nginx spreading requests round robin (no stickiness) over upstream ports,
  passing WebSockets through, as a load balancer in front of several web processes does.
- ``CaddyProxy``: the proxy the deployment ships (``deploy/Caddyfile``, unchanged), over upstream
  ports.

Every server runs in its own session (a Ctrl+C in the terminal reaches pytest, which stops them
in order) and is started through ``setpriv --pdeathsig``, so the kernel stops it when the test
process dies, even by SIGKILL: no server is ever left behind. Each needs a password, so another
user of the machine cannot reach it. The fixtures are in ``tests/conftest.py``.
"""

from __future__ import annotations

import contextlib
import email
import email.message
import glob
import mailbox
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Final, Self

import psycopg
import redis
import yaml

from tests.ports import free_port as free_port

NGINX: Final = "/usr/sbin/nginx"
REDIS_SERVER: Final = "/usr/bin/redis-server"
POSTGRES_USER: Final = "postgres"
"""Who runs PostgreSQL when the tests run as root."""
START_SECONDS: Final = 30.0
STOP_SECONDS: Final = 20.0
HOST: Final = "127.0.0.1"


class ServerError(RuntimeError):
    """A test server could not be started (what it logged is in the message)."""


def postgres_bin() -> Path:
    """The newest installed PostgreSQL's programs (Debian installs them by major version)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/postgres"),
        key=lambda path: int(Path(path).parts[-3]),
    )
    if not found:
        raise ServerError("PostgreSQL is not installed: apt-get install postgresql")
    return Path(found[-1]).parent


def _require(program: str, package: str) -> None:
    if not os.access(program, os.X_OK):
        raise ServerError(f"{program} is not installed: apt-get install {package}")


def _as_root() -> bool:
    return os.geteuid() == 0


def _owned_directory(prefix: str, owner: str | None) -> Path:
    """A new private temporary directory, given to ``owner`` (a user name) when there is one."""
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    if owner is not None:
        shutil.chown(directory, owner, pwd.getpwnam(owner).pw_gid)
    return directory


def _spawn(
    command: Sequence[str], log: IO[bytes], *, user: str | None = None
) -> subprocess.Popen[bytes]:
    """Start ``command`` (as ``user``) in its own session, stopped by the kernel with SIGTERM
    when this process dies."""
    prefix = ["setpriv", "--pdeathsig", "TERM"]
    if user is not None:
        prefix += [f"--reuid={user}", f"--regid={user}", "--init-groups"]
    return subprocess.Popen(
        [*prefix, "--", *command],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _stop(process: subprocess.Popen[bytes], stop_signal: signal.Signals) -> None:
    """Ask ``process`` to stop, then kill it if it takes too long; wait for it either way."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(stop_signal)
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(STOP_SECONDS)


def _tail(path: Path, lines: int = 20, since: int = 0) -> str:
    """The last ``lines`` lines of the log at ``path`` (of what was written after ``since``)."""
    try:
        with path.open("rb") as log:
            log.seek(since)
            text = log.read().decode(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class _Server:
    """A server process in a temporary directory, logging to ``log`` there."""

    name = "server"

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.log = directory / "server.log"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    def _command(self, port: int) -> tuple[list[str], str | None]:
        raise NotImplementedError

    def _ready(self) -> bool:
        raise NotImplementedError

    def start(self) -> None:
        """Start on a free port and wait until it answers; another free port if someone took
        the first one in between."""
        for _attempt in range(5):
            self.port = free_port()
            command, user = self._command(self.port)
            with self.log.open("ab") as log:
                logged = log.tell()
                self.process = _spawn(command, log, user=user)
            deadline = time.monotonic() + START_SECONDS
            while self.process.poll() is None and time.monotonic() < deadline:
                if self._ready():
                    return
                # poll interval: until the server answers, up to its start deadline
                time.sleep(0.05)
            output = _tail(self.log, since=logged)
            _stop(self.process, signal.SIGKILL)
            if "in use" not in output:
                raise ServerError(f"the test {self.name} did not start:\n{output}")
        raise ServerError(f"the test {self.name} found no free port")

    def stop(self) -> None:
        """Stop the server (its stop signal, then SIGKILL) and remove its directory."""
        if self.process is not None:
            _stop(self.process, self._stop_signal)
        shutil.rmtree(self.directory, ignore_errors=True)

    # -- faults, for the tests of a service that must heal by itself ---------------------------

    def halt(self) -> None:
        """Stop the server as an operator's restart does (its stop signal, then SIGKILL), keeping
        its port and directory: ``resume_serving`` starts it again there."""
        if self.process is not None:
            _stop(self.process, self._stop_signal)

    def resume_serving(self) -> None:
        """Start the server again on the port it had (after ``halt``), and wait until it
        answers."""
        if self.process is not None and self.process.poll() is None:
            raise ServerError(f"the test {self.name} is still running")
        command, user = self._command(self.port)
        with self.log.open("ab") as log:
            logged = log.tell()
            self.process = _spawn(command, log, user=user)
        deadline = time.monotonic() + START_SECONDS
        while self.process.poll() is None and time.monotonic() < deadline:
            if self._ready():
                return
            time.sleep(0.05)  # poll interval: until it answers again, up to its start deadline
        raise ServerError(
            f"the test {self.name} did not start again:\n{_tail(self.log, since=logged)}"
        )

    def restart(self, down_seconds: float = 0.0) -> None:
        """``halt``, stay down for ``down_seconds``, ``resume_serving``."""
        self.halt()
        time.sleep(down_seconds)  # the outage itself: its length is the point of the fault
        self.resume_serving()

    def freeze(self) -> None:
        """Pause the server with SIGSTOP: it holds its connections and answers nothing."""
        assert self.process is not None, "the server is not started"
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        """Let a frozen server run on (SIGCONT)."""
        assert self.process is not None, "the server is not started"
        self.process.send_signal(signal.SIGCONT)

    _stop_signal = signal.SIGTERM

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


class PostgresServer(_Server):
    """A PostgreSQL cluster of its own, with a superuser ``bluegray`` and a random password."""

    name = "PostgreSQL server"
    # SIGINT is PostgreSQL's fast shutdown: it disconnects the clients instead of waiting for them.
    _stop_signal = signal.SIGINT

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.user = POSTGRES_USER if _as_root() else None
        super().__init__(_owned_directory("bluegray-postgres-", self.user))
        self.password = secrets.token_hex(16)
        self.data = self.directory / "data"
        self._admin: psycopg.Connection[tuple[object, ...]] | None = None
        self._created = 0

    def start(self) -> None:
        password_file = self.directory / "password"
        password_file.write_text(self.password + "\n")
        if self.user is not None:
            shutil.chown(password_file, self.user)
        initdb = [
            str(self.bin / "initdb"),
            f"--pgdata={self.data}",
            "--username=bluegray",
            f"--pwfile={password_file}",
            "--auth=scram-sha-256",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
            "--no-instructions",
        ]
        with self.log.open("ab") as log:
            done = _spawn(initdb, log, user=self.user).wait()
        password_file.unlink()
        if done != 0:
            raise ServerError(f"initdb failed:\n{_tail(self.log)}")
        super().start()

    def _command(self, port: int) -> tuple[list[str], str | None]:
        settings = {
            "listen_addresses": HOST,
            "port": str(port),
            "unix_socket_directories": "",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "300",
            "log_min_messages": "warning",
        }
        command = [str(self.bin / "postgres"), "-D", str(self.data)]
        for key, value in settings.items():
            command += ["-c", f"{key}={value}"]
        return command, self.user

    def _ready(self) -> bool:
        try:
            self._admin = psycopg.connect(self.dsn("postgres"), autocommit=True, connect_timeout=2)
        except psycopg.OperationalError:
            return False
        return True

    def dsn(self, database: str) -> str:
        return f"postgresql://bluegray:{self.password}@{HOST}:{self.port}/{database}"

    def url(self, database: str) -> str:
        """The SQLAlchemy URL of ``database`` (psycopg 3)."""
        return f"postgresql+psycopg://bluegray:{self.password}@{HOST}:{self.port}/{database}"

    def execute(self, statement: str) -> None:
        """Run one statement as the superuser, outside any transaction (on ``postgres``)."""
        assert self._admin is not None, "the server is not started"
        self._admin.execute(statement.encode())

    def new_database(self) -> str:
        """The name of a new, empty database (made from ``template0``)."""
        self._created += 1
        name = f"test_{self._created}_{secrets.token_hex(4)}"
        self.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return name

    def untouched(self, name: str) -> bool:
        """Whether ``name`` has no table and nobody connected to it (as ``new_database()``
        made it)."""
        with psycopg.connect(self.dsn(name), autocommit=True) as connection:
            tables = connection.execute(
                "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = 'public'"
            ).fetchone()
            others = connection.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        return tables == (0,) and others == (0,)

    def copy_database(self, template: str, name: str) -> None:
        """Make ``name`` (dropped first) a copy of ``template``, to which nobody may be
        connected."""
        self.drop_database(name)
        self.execute(f"CREATE DATABASE {name} TEMPLATE {template}")

    def drop_database(self, name: str) -> None:
        """Drop ``name``, disconnecting whoever is still connected to it."""
        self.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def halt(self) -> None:
        if self._admin is not None:
            self._admin.close()
            self._admin = None
        super().halt()

    def stop(self) -> None:
        if self._admin is not None:
            self._admin.close()
            self._admin = None
        super().stop()


class RedisServer(_Server):
    """A Redis server that keeps nothing on disk, with a random password."""

    name = "Redis server"

    def __init__(self) -> None:
        _require(REDIS_SERVER, "redis-server")
        super().__init__(_owned_directory("bluegray-redis-", None))
        self.password = secrets.token_hex(16)

    def _command(self, port: int) -> tuple[list[str], str | None]:
        command = [REDIS_SERVER, "--port", str(port), "--bind", HOST, "--save", ""]
        command += ["--appendonly", "no", "--dir", str(self.directory)]
        command += ["--requirepass", self.password, "--loglevel", "warning"]
        return command, None

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@{HOST}:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=5)

    def _ready(self) -> bool:
        with self.client() as client:
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                return False

    def flush(self) -> None:
        """Forget every key (between tests)."""
        with self.client() as client:
            client.flushall()


NGINX_CONFIG: Final = """\
daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/server.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        '' close;
    }}
    upstream web {{
{servers}
    }}
    server {{
        listen {host}:{port};
        location / {{
            proxy_pass http://web;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_read_timeout 1h;
            proxy_buffering off;
        }}
    }}
}}
"""


class ReverseProxy(_Server):
    """nginx on a loopback port, spreading requests and WebSockets round robin over the servers
    on ``upstreams`` (loopback ports), with no stickiness: each new request or WebSocket goes to
    the next server. An upstream that refuses a connection is skipped for ``fail_seconds``."""

    name = "nginx reverse proxy"
    _stop_signal = signal.SIGTERM

    def __init__(self, upstreams: Sequence[int], *, fail_seconds: float = 10) -> None:
        _require(NGINX, "nginx")
        if not upstreams:
            raise ValueError("a reverse proxy needs at least one upstream")
        super().__init__(_owned_directory("bluegray-nginx-", None))
        # nginx's worker runs as nobody when started as root: it must reach its temporary paths.
        self.directory.chmod(0o755)
        self.upstreams = tuple(upstreams)
        self.fail_seconds = fail_seconds

    def _command(self, port: int) -> tuple[list[str], str | None]:
        servers = "\n".join(
            f"        server {HOST}:{upstream} fail_timeout={self.fail_seconds:g}s;"
            for upstream in self.upstreams
        )
        config = self.directory / "nginx.conf"
        config.write_text(
            NGINX_CONFIG.format(directory=self.directory, servers=servers, host=HOST, port=port)
        )
        command = [NGINX, "-p", str(self.directory), "-c", str(config)]
        return [*command, "-e", str(self.log)], None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{HOST}:{self.port}"

    def _ready(self) -> bool:
        with socket.socket() as sock:
            sock.settimeout(1)
            return sock.connect_ex((HOST, self.port)) == 0


CADDY: Final = "/usr/bin/caddy"
CADDYFILE: Final = Path(__file__).resolve().parent.parent / "deploy" / "Caddyfile"
"""The shipped proxy configuration, which ``CaddyProxy`` runs unchanged."""


class CaddyProxy(_Server):
    """Caddy running the shipped ``deploy/Caddyfile`` unchanged, in front of the web processes
    on ``upstreams`` (loopback ports): the file takes its site address, upstreams, listening
    address and admin endpoint from environment variables, which this sets (a plain HTTP site on
    a free loopback port, no admin endpoint, so that parallel tests do not clash). Requests must
    name ``host`` (the default ``url`` does): Caddy serves the site under that name only.
    Caddy keeps its data and configuration in the server's own directory."""

    name = "Caddy reverse proxy"

    def __init__(self, upstreams: Sequence[int], *, host: str = "localhost") -> None:
        _require(CADDY, "caddy")
        if not upstreams:
            raise ValueError("a reverse proxy needs at least one upstream")
        super().__init__(_owned_directory("bluegray-caddy-", None))
        self.upstreams = tuple(upstreams)
        self.host = host

    def environment(self, port: int) -> dict[str, str]:
        """The variables the shipped Caddyfile reads, for this proxy on ``port``."""
        return {
            "BLUEGRAY_SITE_ADDRESS": f"http://{self.host}:{port}",
            "BLUEGRAY_UPSTREAMS": " ".join(f"{HOST}:{upstream}" for upstream in self.upstreams),
            "BLUEGRAY_PROXY_BIND": HOST,
            "BLUEGRAY_PROXY_ADMIN": "off",
        }

    def _command(self, port: int) -> tuple[list[str], str | None]:
        home = self.directory
        settings = {
            **self.environment(port),
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"),
        }
        # setpriv runs env, which runs Caddy with exactly these variables (and PATH).
        variables = [f"{name}={value}" for name, value in settings.items()]
        command = ["env", "-i", f"PATH={os.environ.get('PATH', '/usr/bin:/bin')}", *variables]
        return [
            *command,
            CADDY,
            "run",
            "--config",
            str(CADDYFILE),
            "--adapter",
            "caddyfile",
        ], None

    @property
    def url(self) -> str:
        """The site's address (``host``: ``localhost`` reaches the loopback port)."""
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def _ready(self) -> bool:
        with socket.socket() as sock:
            sock.settimeout(1)
            return sock.connect_ex((HOST, self.port)) == 0


COMPOSE_FILE: Final = CADDYFILE.parent.parent / "docker-compose.yml"


def proxy_health_uri(caddyfile: Path = CADDYFILE) -> str:
    """The URI the shipped proxy's active health checks ask each web process for."""
    found = re.findall(r"^\s*health_uri\s+(\S+)\s*$", caddyfile.read_text(), re.MULTILINE)
    if len(found) != 1:
        raise ValueError(f"{caddyfile} names {len(found)} health check URIs, not one")
    return str(found[0])


def compose_health_uris(compose_file: Path = COMPOSE_FILE) -> dict[str, str]:
    """The URI each service's health check in the compose file asks for (the services whose
    health check is an HTTP request), by service."""
    services = yaml.safe_load(compose_file.read_text())["services"]
    found: dict[str, str] = {}
    for name, service in services.items():
        test = service.get("healthcheck", {}).get("test", [])
        text = test if isinstance(test, str) else " ".join(test)
        address = re.search(r"https?://[^/\s'\"]+(/[^\s'\"]*)", text)
        if address:
            found[name] = address.group(1)
    return found


class MailSink(_Server):
    """An SMTP server that keeps what it receives: ``aiosmtpd`` (its command line, in a process
    of its own) with its ``Mailbox`` handler writing every message to a Maildir. ``port``: a
    port chosen in advance (to start the sink after the service was told where it would be)."""

    name = "SMTP sink"

    def __init__(self, port: int | None = None) -> None:
        super().__init__(Path(tempfile.mkdtemp(prefix="bluegray-mail-")))
        self.maildir = self.directory / "Maildir"
        self.fixed_port = port

    def start(self) -> None:
        if self.fixed_port is None:
            super().start()
            return
        self.port = self.fixed_port
        command, _ = self._command(self.port)
        with self.log.open("ab") as log:
            self.process = _spawn(command, log)
        deadline = time.monotonic() + START_SECONDS
        while self.process.poll() is None and time.monotonic() < deadline:
            if self._ready():
                return
            time.sleep(0.05)  # poll interval: until the mail server answers, up to the deadline
        raise ServerError(f"the test {self.name} did not start:\n{_tail(self.log)}")

    def _command(self, port: int) -> tuple[list[str], str | None]:
        command = [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"{HOST}:{port}"]
        return [*command, "-c", "aiosmtpd.handlers.Mailbox", str(self.maildir)], None

    def _ready(self) -> bool:
        try:
            with socket.create_connection((HOST, self.port), timeout=1) as connection:
                return connection.recv(3) == b"220"
        except OSError:
            return False

    def messages(self) -> list[email.message.Message]:
        """What it has received, oldest first."""
        if not self.maildir.exists():
            return []
        box = mailbox.Maildir(self.maildir, create=False)
        found = [(message.get_date(), message) for message in box]
        return [email.message_from_bytes(message.as_bytes()) for _, message in sorted(found)]

    def wait_for(self, count: int, seconds: float = 20) -> list[email.message.Message]:
        """The messages once there are ``count`` (or all there are after ``seconds``)."""
        deadline = time.monotonic() + seconds
        while len(found := self.messages()) < count and time.monotonic() < deadline:
            time.sleep(0.1)  # poll interval: until the messages arrive, up to the deadline
        return found
