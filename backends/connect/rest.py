"""The workers' REST API over urllib: one request to one worker, or to the first of them that answers.

A worker that does not answer — connection refused, no answer within the timeout, a TLS handshake that fails, a
worker still starting (Jetty answers 404 in HTML until Connect's resources are up, 10-20 s after start) — is passed
over for the next one, and the one that answered is asked first next time. Connect forwards a request a follower
cannot serve to its leader by itself, so any worker will do. A request whose answer was lost to a timeout may have
been done: a POST (create, restart) is then not sent again to another worker, and the error says so.

An answer with an error is Connect's `{"error_code": 409, "message": …}`: a 4xx becomes ConnectRefused, a 5xx
ConnectError, each with the worker's own message. A 409 during a rebalance ("Cannot complete request because of a
conflicting operation (e.g. worker rebalance)", "… no known leader URL, likely because a rebalance was underway") is
asked once more after a short wait. No message here holds a password: the credentials travel in a header only.
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from kafkatop.backends.model.addresses import socket_error_reason
from kafkatop.backends.model.connect import ConnectError, ConnectRefused
from kafkatop.backends.model.errors import BadInput, KafkatopError
from kafkatop.backends.model.json_text import loads

REBALANCE_RETRY_S = 1.0  # the wait before asking again after a 409 of a rebalance: a rebalance takes ~1-3 s
_REBALANCE_WORDS = ("rebalance",)
# Connect answers an unknown connector class with a 500 whose message is this exception's (wrapping a
# ConnectException, in a validation): bad input all the same.
_BAD_REQUEST = "org.apache.kafka.connect.runtime.rest.errors.BadRequestException: "
_CONNECT_EXCEPTION = "org.apache.kafka.connect.errors.ConnectException: "
_MAX_TEXT = 300  # a non-JSON error body (a proxy's page, a 401 text) is quoted up to this many characters


class NoAnswer(Exception):  # noqa: N818 — not an error of the program: one worker did not answer, the next is asked
    """One worker did not answer (or not as a Connect worker): why, in words; `maybe_done` when the request had been
    sent whole (its answer was lost, not the request)."""

    def __init__(self, why: str, *, maybe_done: bool = False) -> None:
        super().__init__(why)
        self.maybe_done = maybe_done


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: Any  # the JSON answer as json.loads reads it (key order kept); None for an empty body
    worker: str  # the URL of the worker that answered


def worker_url(url: str) -> str:
    """A worker's base URL as given (`http://host:8083`, `https://…`, or `host:8083` for http; a proxy's path kept),
    without a trailing slash; an address that cannot be one is BadInput. Credentials in the URL are refused without
    quoting them."""
    text = url.strip()
    if "://" not in text:
        text = f"http://{text}"
    parts = urllib.parse.urlsplit(text)
    if parts.username is not None or parts.password is not None:
        raise BadInput(
            "a Connect URL holds credentials: give them in the --command-config file "
            "(connect.basic.auth.user.info=USER:PASSWORD), never on the command line"
        )
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port == -1 or parts.query or parts.fragment:
        raise BadInput(f"{url.strip()!r} is not a Connect worker's URL: give http://HOST:PORT or https://HOST:PORT")
    return text.rstrip("/")  # a path is kept: a proxy may serve the workers under one


def worker_name(url: str) -> str:
    """`127.0.0.1:8083`: how a worker is named in messages (Connect's own worker ids are host:port too)."""
    return urllib.parse.urlsplit(url).netloc


class Workers:
    """The workers of one Connect cluster, asked over HTTP(S) with basic auth when given."""

    def __init__(
        self,
        urls: tuple[str, ...],
        *,
        user_info: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        if not urls:
            raise BadInput("no Connect worker to ask: give --connect-url http://HOST:PORT")
        self.urls = tuple(dict.fromkeys(worker_url(u) for u in urls))
        self.timeout_s = timeout_s
        self.credentials = user_info is not None
        self._headers = {"Accept": "application/json"}
        if user_info is not None:
            self._headers["Authorization"] = "Basic " + base64.b64encode(user_info.encode("utf-8")).decode("ascii")
        https = urllib.request.HTTPSHandler(context=ssl_context)
        # The environment's proxy (http_proxy, no_proxy) as curl takes it, but never for this machine's own workers
        # (a lab's): a proxy elsewhere cannot reach them.
        self._opener = urllib.request.build_opener(https)
        self._local = urllib.request.build_opener(https, urllib.request.ProxyHandler({}))
        self.first = 0  # the worker that answered last: asked first
        self.passed: tuple[str, ...] = ()  # the workers the last call passed over before one answered, with why

    # --- one worker -------------------------------------------------------------------------------------------------
    def ask(self, url: str, method: str, path: str, body: object = None) -> Answer:
        """One request to one worker; NoAnswer when it did not answer as a Connect worker."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = dict(self._headers)
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url + path, data=data, headers=headers, method=method)
        opener = self._local if _is_loopback(url) else self._opener
        try:
            with opener.open(request, timeout=self.timeout_s) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, _read_error(e)
        except urllib.error.URLError as e:
            raise NoAnswer(_reason(e.reason, self.timeout_s, url)) from None
        except (OSError, http.client.HTTPException) as e:  # urllib wraps what fails before the request is sent
            raise NoAnswer(_reason(e, self.timeout_s, url), maybe_done=True) from None
        return Answer(status, _decode(status, raw), url)

    # --- the first that answers -------------------------------------------------------------------------------------
    def call(self, method: str, path: str, body: object = None) -> Answer:
        """The request to the worker that answered last, else the next ones in turn; a 409 of a rebalance asked once
        more. A refusal raises ConnectRefused (4xx) or ConnectError (5xx); no worker answering raises ConnectError
        naming each, and why."""
        problems: list[str] = []
        count = len(self.urls)
        for step in range(count):
            index = (self.first + step) % count
            url = self.urls[index]
            try:
                answer = self.ask(url, method, path, body)
                if answer.status == 409 and _is_rebalance(answer.body):
                    time.sleep(REBALANCE_RETRY_S)
                    answer = self.ask(url, method, path, body)
            except NoAnswer as e:
                problems.append(f"{worker_name(url)} {e}")
                if method == "POST" and e.maybe_done:
                    self.passed = ()
                    raise ConnectError(
                        f"{worker_name(url)} {e}: it may have done it (a {method} is not sent twice); "
                        "`kafkatop connect list` shows what the workers have"
                    ) from None
                continue
            self.first = index
            self.passed = tuple(problems)
            if answer.status >= 400:
                raise refusal(answer, credentials=self.credentials)
            return answer
        self.passed = ()  # the error names them
        raise ConnectError(none_answered(problems))


def none_answered(problems: list[str]) -> str:
    return "no Connect worker answered: " + "; ".join(problems)


def refusal(answer: Answer, *, credentials: bool = False) -> KafkatopError:
    """A worker's error answer as ConnectRefused (4xx, and a 500 that is Connect's BadRequestException) or
    ConnectError (5xx, and a 409 of a rebalance still going on), with its own message."""
    message = error_message(answer)
    if answer.status in (401, 403):
        who = worker_name(answer.worker)
        if credentials:
            return ConnectRefused(f"{who} refused the credentials ({answer.status}: {message}): check "
                                  "connect.basic.auth.user.info in the --command-config file")  # fmt: skip
        return ConnectRefused(f"{who} refused the request ({answer.status}: {message}): give "
                              "connect.basic.auth.user.info=USER:PASSWORD in the --command-config file")  # fmt: skip
    if answer.status == 409 and _is_rebalance(answer.body):  # asked twice already: not the request's fault
        return ConnectError(f"{worker_name(answer.worker)}: {message} (asked twice; try again in a moment)")
    if 400 <= answer.status < 500:
        return ConnectRefused(message)
    if message.startswith(_BAD_REQUEST):
        return ConnectRefused(_short_plugins(message.removeprefix(_BAD_REQUEST).removeprefix(_CONNECT_EXCEPTION)))
    return ConnectError(f"{worker_name(answer.worker)} failed the request ({answer.status}): {message}")


def error_message(answer: Answer) -> str:
    """Connect's own `message`, else the body's text, else the HTTP status."""
    body = answer.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    if isinstance(body, str) and body.strip():
        return body.strip()[:_MAX_TEXT]
    return f"HTTP {answer.status}"


def _short_plugins(message: str) -> str:
    """Connect names the plugins it has as `PluginDesc{klass=class a.b.C, name='a.b.C', …}`: the class names will do."""
    out, rest = [], message
    while "PluginDesc{" in rest:
        before, _, after = rest.partition("PluginDesc{")
        inner, _, rest = after.partition("}")
        name = next((p.split("=", 1)[1].strip("'") for p in inner.split(", ") if p.startswith("name=")), inner)
        out.append(before + name)
    return "".join(out) + rest


def _is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    return host == "localhost" or host.startswith("127.") or host == "::1"


def _is_rebalance(body: object) -> bool:
    message = body.get("message") if isinstance(body, dict) else None
    return isinstance(message, str) and any(w in message.lower() for w in _REBALANCE_WORDS)


def _read_error(e: urllib.error.HTTPError) -> bytes:
    try:
        return e.read()
    except (OSError, http.client.HTTPException):
        return b""
    finally:
        e.close()


def _decode(status: int, raw: bytes) -> Any:
    """The body as JSON; a worker still starting (Jetty's 404 page) or something that is not a Connect worker is
    NoAnswer; a non-JSON error body (a 401's text) is kept as text for the message."""
    if not raw.strip():
        return None
    try:
        return loads(raw)
    except ValueError:  # TooDeep too: nested deeper than any answer of Connect's
        text = raw.decode("utf-8", errors="replace")
        if status == 404 and "<html" in text.lower():
            raise NoAnswer("is starting: it answers 404 until its REST API is up (10-20 s after a start)") from None
        if status < 400:
            raise NoAnswer("answered, but not in JSON: not a Kafka Connect worker?") from None
        return text


def _reason(e: object, timeout_s: float, url: str) -> str:
    """Why a worker did not answer, in words."""
    if isinstance(e, ssl.SSLCertVerificationError):
        return f"did not pass the TLS check ({e.verify_message}): connect.ssl.ca.location names the CA to trust"
    if isinstance(e, ssl.SSLError):
        plain = url.startswith("https:") and "WRONG_VERSION_NUMBER" in str(e)
        why = "an http worker asked over https?" if plain else (e.reason or str(e))
        return f"failed the TLS handshake ({why})"
    if isinstance(e, ConnectionResetError | http.client.RemoteDisconnected | http.client.BadStatusLine):
        # Most often the worker going down mid-request (a kill -9); on every request, an https worker asked over http.
        hint = " (going down? or an https worker asked over http)" if url.startswith("http:") else " (going down?)"
        return f"closed the connection without an answer{hint}"
    if isinstance(e, socket.timeout | TimeoutError):
        return f"did not answer (no answer within {timeout_s:g} s)"
    if isinstance(e, OSError):
        return f"did not answer ({socket_error_reason(e, timeout_s, 'connection refused: is the worker down?')})"
    return f"did not answer ({e})"
