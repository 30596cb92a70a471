"""A throw-away PostgreSQL server for tests: ``initdb`` + ``pg_ctl`` from Debian's ``postgresql``.

The cluster lives in a temp dir, listens on 127.0.0.1 at a free port with ``trust`` auth and
is stopped (``pg_ctl stop -m immediate``) when the test session ends. As root the binaries run
as the ``postgres`` user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BIN_GLOB = "/usr/lib/postgresql/*/bin"
SERVER_USER = "postgres"


def find_bin_dir() -> Path | None:
    """Newest ``/usr/lib/postgresql/N/bin`` holding ``initdb`` and ``pg_ctl``, else ``None``."""
    found = [Path(d) for d in glob.glob(BIN_GLOB) if (Path(d) / "initdb").exists()]
    return max(found, key=lambda d: int(d.parent.name)) if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", SERVER_USER, "--", *command] if os.geteuid() == 0 else command


@contextmanager
def postgres_server(bin_dir: Path) -> Iterator[str]:
    """Start a fresh cluster; yields its admin URL ``postgresql://USER@127.0.0.1:PORT``."""
    root = Path(tempfile.mkdtemp(prefix="sanbench-pg-"))
    user = SERVER_USER if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
    if os.geteuid() == 0:
        shutil.chown(root, user=SERVER_USER)
    data, port = root / "data", _free_port()

    def run(binary: str, *args: str) -> None:
        command = _as_server_user([str(bin_dir / binary), *args])
        subprocess.run(command, check=True, capture_output=True, text=True)

    try:
        run("initdb", "-D", str(data), "-U", user, "--auth=trust", "-E", "UTF8")
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c max_connections=200"
        run("pg_ctl", "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start")
        try:
            yield f"postgresql://{user}@127.0.0.1:{port}"
        finally:
            run("pg_ctl", "-D", str(data), "-m", "immediate", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def create_database(admin_url: str, name: str) -> str:
    """``CREATE DATABASE name`` on the server; returns the new database's URL."""
    import psycopg

    with psycopg.connect(f"{admin_url}/postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"{admin_url}/{name}"
