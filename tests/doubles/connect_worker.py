"""TEST DOUBLE of a Kafka Connect worker: an http.server answering recorded 4.1 answers (tests/fixtures/connect/), for
what a real worker cannot give on demand (a 409 mid-rebalance, a worker behind basic auth or TLS, a connector whose
config holds a password without a plugin that takes one). Real workers: tests/integration/test_connect_kafka.py."""

from __future__ import annotations

import base64
import ssl
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures" / "connect"


def recorded(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def plugin_configs() -> dict[tuple[str, str], list[tuple[int, bytes]]]:
    """The answers to `GET /connector-plugins/CLASS/config` for the file connectors, by each name they go by, as a
    4.1 worker gives them (the client asks them once per plugin, for its PASSWORD settings)."""
    source, sink = recorded("plugin_config_filestreamsource.json"), recorded("plugin_config_filestreamsink.json")
    names = {"FileStreamSource": source, "FileStreamSourceConnector": source, "FileStreamSink": sink,
             "FileStreamSinkConnector": sink, "org.apache.kafka.connect.file.FileStreamSourceConnector": source,
             "org.apache.kafka.connect.file.FileStreamSinkConnector": sink}  # fmt: skip
    return {("GET", f"/connector-plugins/{name}/config"): [(200, body)] for name, body in names.items()}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class ScriptedWorker:
    """A double of a Connect worker: answers[(method, path)] is a list of (status, body), the first used up each
    time, the last one kept. Every request is recorded. With `user_info` (USER:PASSWORD), a request without that basic
    auth is answered 401, as Connect's BasicAuthSecurityRestExtension answers it."""

    answers: dict[tuple[str, str], list[tuple[int, bytes]]]
    seen: list[Seen] = field(default_factory=list)
    tls: ssl.SSLContext | None = None
    user_info: str | None = None

    def __post_init__(self) -> None:
        worker = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                worker.seen.append(Seen(self.command, self.path, dict(self.headers), self.rfile.read(length)))
                script = worker.answers.get((self.command, self.path)) or [(404, b'{"error_code":404,"message":"?"}')]
                status, body = script.pop(0) if len(script) > 1 else script[0]
                if worker.user_info is not None and self.headers.get("Authorization") != worker.authorization:
                    status, body = 401, b'{"error_code":401,"message":"User cannot access the resource."}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_PUT = do_POST = do_DELETE = _answer  # noqa: N815 — http.server's names

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 — http.server's name
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if self.tls is not None:
            self.server.socket = self.tls.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, name="test-scripted-worker", daemon=True)
        self.thread.start()

    @property
    def authorization(self) -> str:
        return "Basic " + base64.b64encode((self.user_info or "").encode()).decode("ascii")

    @property
    def url(self) -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
