"""TEST DOUBLE of Confluent Schema Registry: an HTTP server on 127.0.0.1 speaking the registry's REST API as Confluent
documents it and as confluent-kafka 2.16's SchemaRegistryClient (and so its Avro, Protobuf and JSON Schema
serializers) calls it. No real Schema Registry can run on these machines (Confluent's is in no registry reachable
here; Karapace needs a Go toolchain and a patched Avro; Apicurio's runner is not served), so the registry path of
kafkatop is tested against this, and every test that uses it says so in its name.

Served: GET /subjects, GET /subjects/{s}/versions, GET|DELETE /subjects/{s}/versions/{v|latest} (`format=serialized`,
`deleted=true`), GET /subjects/{s}/versions/{v}/schema, POST /subjects/{s}/versions (register: `{"id": N}`),
POST /subjects/{s} (lookup), DELETE /subjects/{s} (`permanent=true`), GET /schemas/ids/{id} (`format=serialized`,
`subject=`), GET /schemas/ids/{id}/versions and /subjects, GET /schemas/types, GET|PUT /config and
GET|PUT|DELETE /config/{s} (40408 when a subject has no level of its own), GET /mode; any other path is Jersey's
`{"error_code": 404, "message": "HTTP 404 Not Found"}` (as the associations of Confluent Cloud are, on which the
serializers' default subject name strategy falls back to the topic's). Errors are Confluent's bodies and codes,
answers `application/vnd.schemaregistry.v1+json`. With a user and password, a request without them is answered 401;
with a TLS context, it speaks https.
`requests` counts the requests by "METHOD /path" (no query). The registry's rules: schema_store.py.

Standalone, for trying kafkatop by hand: `python -m tests.doubles.schema_registry --port 8081` prints its URL and
serves until Ctrl-C (`--user NAME` asks for basic auth, the password read from $SCHEMA_REGISTRY_DOUBLE_PASSWORD).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import signal
import socket
import ssl
import threading
import urllib.parse
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.doubles.schema_store import Refused, SchemaStore, subject_not_found

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
PASSWORD_VARIABLE = "SCHEMA_REGISTRY_DOUBLE_PASSWORD"
_SUBJECT = r"/subjects/(?P<subject>[^/]+)"
_VERSION = _SUBJECT + r"/versions/(?P<version>[^/]+)"
_ID = r"/schemas/ids/(?P<id>\d+)"
Route = Callable[["Request"], Any]


class Request:
    """One request as the routes see it: its path's named parts, query and JSON body."""

    def __init__(self, parts: dict[str, str], query: dict[str, str], body: Any) -> None:
        self.parts, self.query, self.body = parts, query, body

    @property
    def subject(self) -> str:
        return urllib.parse.unquote(self.parts["subject"])

    def flag(self, name: str) -> bool:
        return self.query.get(name, "false").lower() == "true"


class Raw(str):
    """An answer sent as it is, not as JSON (`/subjects/{s}/versions/{v}/schema`: the schema itself)."""


class SchemaRegistryDouble:
    """TEST DOUBLE of a Confluent Schema Registry on 127.0.0.1:`port` (0: a free port); `.url`; a context manager;
    `.close()` stops it and joins its thread."""

    def __init__(
        self,
        port: int = 0,
        *,
        user: str | None = None,
        password: str | None = None,
        compatibility: str = "BACKWARD",
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.store = SchemaStore(compatibility)
        self.requests: Counter[str] = Counter()
        self._auth = None if user is None else "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self._routes = self._route_table()
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.server.daemon_threads = True
        self.scheme = "http" if tls is None else "https"
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, name="schema-registry-double", daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"{self.scheme}://{host!s}:{port}"

    def count(self, method: str, path: str) -> int:
        return self.requests[f"{method} {path}"]

    def register(self, subject: str, schema: str, schema_type: str = "AVRO") -> int:
        """Register without HTTP (a test's setup): the schema's id."""
        return self.store.register(subject, {"schema": schema, "schemaType": schema_type})

    def close(self) -> None:
        self.server.shutdown()
        with self._lock:
            for sock in list(self._open):  # a kept-alive connection's thread waits on it: end the wait
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self.server.server_close()
        self.thread.join(timeout=10)

    def __enter__(self) -> SchemaRegistryDouble:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the API ----------------------------------------------------------------------------------------------------
    def _route_table(self) -> list[tuple[str, re.Pattern[str], Route]]:
        s = self.store
        table: list[tuple[str, str, Route]] = [
            ("GET", r"/", lambda r: {}),
            ("GET", r"/subjects", lambda r: sorted(n for n, st in s.subjects.items() if st.live(r.flag("deleted")))),
            ("GET", _SUBJECT + r"/versions", lambda r: s.subject(r.subject, r.flag("deleted")).live(r.flag("deleted"))),
            ("POST", _SUBJECT + r"/versions", lambda r: {"id": s.register(r.subject, r.body or {})}),
            ("GET", _VERSION, self._version),
            ("GET", _VERSION + r"/schema", lambda r: Raw(self._version(r)["schema"])),
            ("DELETE", _VERSION, lambda r: s.delete_version(r.subject, r.parts["version"], r.flag("permanent"))),
            ("POST", _SUBJECT, self._lookup),
            ("DELETE", _SUBJECT, lambda r: s.delete_subject(r.subject, r.flag("permanent"))),
            ("GET", _ID, lambda r: s.by_id(int(r.parts["id"])).answer(r.query.get("format"))),
            ("GET", _ID + r"/versions", lambda r: [{"subject": n, "version": v} for n, v in self._holders(r)]),
            ("GET", _ID + r"/subjects", lambda r: list(dict.fromkeys(n for n, _ in self._holders(r)))),
            ("GET", r"/schemas/types", lambda r: ["JSON", "PROTOBUF", "AVRO"]),
            ("GET", r"/config", lambda r: {"compatibilityLevel": s.compatibility}),
            ("PUT", r"/config", lambda r: {"compatibility": s.set_level(None, r.body or {})}),
            ("GET", r"/config/(?P<subject>[^/]+)", self._subject_level),
            ("PUT", r"/config/(?P<subject>[^/]+)", lambda r: {"compatibility": s.set_level(r.subject, r.body or {})}),
            ("DELETE", r"/config/(?P<subject>[^/]+)", self._delete_level),
            ("GET", r"/mode", lambda r: {"mode": "READWRITE"}),
        ]
        return [(method, re.compile(pattern + r"/?"), route) for method, pattern, route in table]

    def _version(self, r: Request) -> dict[str, Any]:
        number, stored = self.store.version(r.subject, r.parts["version"], r.flag("deleted"))
        return {"subject": r.subject, "version": number, "id": stored.schema_id, **stored.answer(r.query.get("format"))}

    def _lookup(self, r: Request) -> dict[str, Any]:
        number, stored = self.store.lookup(r.subject, r.body or {}, r.flag("deleted"))
        return {"subject": r.subject, "version": number, "id": stored.schema_id, **stored.answer(r.query.get("format"))}

    def _holders(self, r: Request) -> list[tuple[str, int]]:
        schema_id = int(r.parts["id"])
        self.store.by_id(schema_id)
        held = self.store.holders(schema_id, r.flag("deleted"))
        wanted = r.query.get("subject")
        return [(n, v) for n, v in held if wanted is None or n == wanted]

    def _subject_level(self, r: Request) -> dict[str, str]:
        state = self.store.subjects.get(r.subject)
        if state is None or state.compatibility is None:
            if r.flag("defaultToGlobal"):
                return {"compatibilityLevel": self.store.compatibility}
            raise Refused(404, 40408, f"Subject '{r.subject}' does not have subject-level compatibility configured")
        return {"compatibilityLevel": state.compatibility}

    def _delete_level(self, r: Request) -> dict[str, str]:
        state = self.store.subjects.get(r.subject)
        if state is None:
            raise subject_not_found(r.subject)
        old, state.compatibility = state.compatibility or self.store.compatibility, None
        return {"compatibilityLevel": old}

    # --- HTTP -------------------------------------------------------------------------------------------------------
    def _answer(self, method: str, raw_path: str, headers: dict[str, str], data: bytes) -> tuple[int, Any]:
        parts = urllib.parse.urlsplit(raw_path)
        path = parts.path
        with self._lock:
            self.requests[f"{method} {path}"] += 1
        if self._auth is not None and headers.get("authorization") != self._auth:
            return 401, {"error_code": 401, "message": "Unauthorized"}
        query = dict(urllib.parse.parse_qsl(parts.query))
        try:
            body = json.loads(data) if data else None
        except ValueError as e:
            return 400, {"error_code": 400, "message": f"Unexpected character: {e}"}
        for route_method, pattern, route in self._routes:
            match = pattern.fullmatch(path)
            if match and route_method == method:
                try:
                    with self.store.lock:
                        return 200, route(Request(match.groupdict(), query, body))
                except Refused as e:
                    return e.status, {"error_code": e.code, "message": e.message}
                except Exception as e:  # noqa: BLE001 — a bug of the double, or a body it cannot read: answered
                    return 500, {"error_code": 50001, "message": f"{type(e).__name__}: {e}"}
        return 404, {"error_code": 404, "message": "HTTP 404 Not Found"}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as httpx asks
            timeout = 30  # an idle kept-alive connection's thread ends

            def setup(self) -> None:
                super().setup()
                with double._lock:
                    double._open.add(self.connection)

            def finish(self) -> None:
                with double._lock:
                    double._open.discard(self.connection)
                super().finish()

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, answer = double._answer(self.command, self.path, headers, data)
                body = (answer if isinstance(answer, Raw) else json.dumps(answer)).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", CONTENT_TYPE)
                self.send_header("Content-Length", str(len(body)))
                if status == 401:
                    self.send_header("WWW-Authenticate", 'Basic realm="SchemaRegistry"')
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = _serve  # noqa: N815 — http.server's names

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 — http.server's name
                pass

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tests.doubles.schema_registry",
        description="TEST DOUBLE of Confluent Schema Registry, for trying kafkatop by hand",
    )
    parser.add_argument("--port", type=int, default=8081, help="the port on 127.0.0.1 (default: 8081; 0: a free one)")
    parser.add_argument("--user", help=f"ask for basic auth as this user (the password from ${PASSWORD_VARIABLE})")
    parser.add_argument("--compatibility", default="BACKWARD", help="the default level (default: BACKWARD)")
    args = parser.parse_args()
    password = os.environ.get(PASSWORD_VARIABLE) if args.user else None
    if args.user and not password:
        parser.error(f"--user needs the password in ${PASSWORD_VARIABLE}")
    level = args.compatibility.upper()
    double = SchemaRegistryDouble(args.port, user=args.user, password=password, compatibility=level)
    print(f"TEST DOUBLE of Confluent Schema Registry at {double.url} (Ctrl-C stops it)", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())  # also where a shell started it in the background
    try:
        stop.wait()
    finally:
        double.close()


if __name__ == "__main__":
    main()
