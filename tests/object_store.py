"""A real S3 server on 127.0.0.1 for tests: moto's server mode (`moto_server`, the dev extra's
`moto[server]`), started once per test process, with a fresh bucket per test.

The server speaks S3's HTTP API, conditional writes included, so Inspect's log API and the
package's store code talk to it exactly as to AWS (through s3fs and botocore, pointed at it by
`AWS_ENDPOINT_URL`). Tests skip where moto or s3fs is not installed or the server does not start.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import environment

ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@dataclass(frozen=True)
class S3Server:
    """A running server: its endpoint and the variables that point clients at it."""

    endpoint: str

    @property
    def env(self) -> dict[str, str]:
        return {**ENVIRONMENT, "AWS_ENDPOINT_URL": self.endpoint}

    def bucket(self) -> str:
        """A new empty bucket's name."""
        import boto3

        name = f"t-{uuid.uuid4().hex[:16]}"
        boto3.client("s3", endpoint_url=self.endpoint, **_credentials()).create_bucket(Bucket=name)
        return name


def _credentials() -> dict[str, str]:
    return {
        "aws_access_key_id": ENVIRONMENT["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": ENVIRONMENT["AWS_SECRET_ACCESS_KEY"],
        "region_name": ENVIRONMENT["AWS_DEFAULT_REGION"],
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def moto_command() -> list[str] | None:
    """How to start moto's server, or None where it is not installed."""
    for name in ("moto", "s3fs", "boto3", "flask"):
        try:
            __import__(name)
        except ImportError:
            return None
    found = shutil.which("moto_server") or str(Path(sys.executable).parent / "moto_server")
    return [found] if Path(found).exists() else None


def start_server() -> tuple[subprocess.Popen[bytes], S3Server]:
    """Start moto's S3 server on a free port of 127.0.0.1 (skips when it cannot)."""
    command = moto_command()
    if command is None:
        pytest.skip("moto[server] and s3fs are not installed (the dev extra has them)")
    port = _free_port()
    process = subprocess.Popen(
        [*command, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.skip(f"moto's S3 server exited at start (code {process.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, S3Server(f"http://127.0.0.1:{port}")
        except OSError:
            time.sleep(0.1)
    process.kill()
    pytest.skip("moto's S3 server did not start in 30 s")


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    """One S3 server for the test process, its variables set for the whole session (the
    filesystem objects fsspec and Inspect keep read them once)."""
    process, server = start_server()
    try:
        with environment(server.env):
            yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def bucket(s3_server: S3Server) -> str:
    """A fresh bucket's URL, ``s3://<name>``."""
    return f"s3://{s3_server.bucket()}"
