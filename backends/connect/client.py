"""ConnectClient: a Kafka Connect cluster through its workers' REST API (the ConnectCluster port of backends/ports.py).

A poll asks every worker `GET /` at once (version, commit, Kafka cluster id: whether each answers), then one of
those that answered `GET /connectors?expand=status&expand=info`: every connector with its status and config in one
request, however many there are. The actions are one request each to the first worker that answers (rest.py). The
`*_answer` methods return a worker's JSON answer as it came (for `kafkatop connect … --json`), but for the secrets in
a connector's config, hidden here, before anything reads them (masking.py); the others parse it (answers.py). Which
settings a plugin declares PASSWORD is asked once per plugin class (`GET /connector-plugins/CLASS/config`), not per
connector or per poll.
"""

from __future__ import annotations

import ssl
import time
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from kafkatop.backends.connect.answers import (
    connectors_of,
    offsets_of,
    plugins_of,
    status_of,
    validation_of,
    worker_of,
)
from kafkatop.backends.connect.local_files import noted, noted_snapshot
from kafkatop.backends.connect.masking import (
    SHORTEST_SCRUBBED,
    UNKNOWN,
    PasswordKeys,
    class_of,
    has_trace,
    masked_connectors,
    masked_definitions,
    masked_info,
    masked_validation,
    password_keys_of,
    scrubbed,
    scrubbed_status,
    secrets_in,
)
from kafkatop.backends.connect.rest import NoAnswer, Workers, none_answered, refusal, worker_name
from kafkatop.backends.model.connect import (
    ConnectError,
    Connector,
    ConnectorOffset,
    ConnectorPlugin,
    ConnectRefused,
    ConnectSnapshot,
    ConnectWorker,
    Validation,
)
from kafkatop.backends.model.errors import KafkatopError

EXPANDED = "/connectors?expand=status&expand=info"
# A plugin whose definitions could not be read (a worker without it, or without the endpoint, older than 3.2) is
# asked again after this long; meanwhile its connectors show only Connect's own settings.
DEFINITIONS_RETRY_S = 60.0


def _segment(text: str) -> str:
    """A connector's or plugin's name as one path segment (Connect decodes it). A name holding '/' has none: the
    workers' Jetty refuses an encoded '/' in a path (HTTP 400, "Ambiguous URI path separator"), so it is refused here,
    saying so, rather than with Jetty's page."""
    if "/" in text:
        raise ConnectRefused(
            f"connector {text!r} holds '/', which Kafka Connect's REST API cannot address (its Jetty refuses an "
            "encoded '/' in a path): name it without one"
        )
    return urllib.parse.quote(text, safe="")


class ConnectClient:
    """The workers at `urls`, asked with basic auth (`user_info`, USER:PASSWORD) and TLS (`ssl_context`) when given;
    each request bounded by `timeout_s` per worker asked."""

    def __init__(
        self,
        urls: Sequence[str],
        *,
        user_info: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
        timeout_s: float = 10.0,
        local: bool = False,
    ) -> None:
        """`local`: the workers run on this host (a lab's), where a FileStreamSource's missing file is looked for."""
        self.local = local
        self._workers = Workers(tuple(urls), user_info=user_info, ssl_context=ssl_context, timeout_s=timeout_s)
        self._pool: ThreadPoolExecutor | None = None
        # Each plugin class's PASSWORD settings, and when they were read (the poll's worker and an action's may both
        # ask: at worst one plugin is asked twice).
        self._passwords: dict[str, tuple[PasswordKeys, float]] = {}

    @property
    def urls(self) -> tuple[str, ...]:
        return self._workers.urls

    @property
    def answered(self) -> str:
        """The worker (host:port) that answered the last request: the one asked first next time."""
        return worker_name(self.urls[self._workers.first])

    @property
    def passed(self) -> tuple[str, ...]:
        """The workers the last request passed over before one answered, each with why."""
        return self._workers.passed

    # --- the poll ---------------------------------------------------------------------------------------------------
    def poll(self) -> ConnectSnapshot:
        """Every worker's `GET /` and the connectors, expanded. Never raises for a worker that does not answer: the
        snapshot names each one, and says why there are no connectors when none answered. Workers that all refuse
        the credentials (401, 403) raise ConnectRefused."""
        taken_at = time.time()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=min(len(self.urls), 8), thread_name_prefix="kafkatop-connect")
        asked = tuple(self._pool.map(self._root, self.urls))
        workers = tuple(worker for worker, _ in asked)
        answering = [w.url for w in workers if w.reachable]
        if not answering:
            refused = next((refused for _, refused in asked if refused is not None), None)
            if refused is not None:
                raise refused  # the credentials, not the workers: no poll will do better until they change
            problems = [f"{worker_name(w.url)} {w.problem}" for w in workers]
            return ConnectSnapshot(taken_at, workers, (), problem=none_answered(problems))
        try:
            connectors = connectors_of(self.connectors_answer(prefer=answering), self.answered)
        except KafkatopError as e:
            return ConnectSnapshot(taken_at, workers, (), problem=str(e))
        snapshot = ConnectSnapshot(taken_at, workers, connectors)
        return noted_snapshot(snapshot) if self.local else snapshot

    def check_cluster(self, cluster_id: str, owner: str) -> None:
        """ConnectRefused when a worker answers as Connect of another Kafka cluster than `cluster_id` (a stranger's
        Connect on a lab's ports): nothing is asked of the workers then. One that does not answer is left to the
        call."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=min(len(self.urls), 8), thread_name_prefix="kafkatop-connect")
        for worker, _ in self._pool.map(self._root, self.urls):
            if worker.kafka_cluster_id is not None and worker.kafka_cluster_id != cluster_id:
                raise ConnectRefused(
                    f"{worker_name(worker.url)} answers as Kafka Connect of cluster {worker.kafka_cluster_id}, not of "
                    f"{owner} ({cluster_id}): is another Connect on its port? Nothing was asked of it; pass "
                    "--connect-url to act on that one"
                )

    def _root(self, url: str) -> tuple[ConnectWorker, KafkatopError | None]:
        """The worker's `GET /`, and its refusal of the credentials (401, 403) if it refused them."""
        try:
            answer = self._workers.ask(url, "GET", "/")
        except NoAnswer as e:
            return ConnectWorker(url, problem=str(e)), None
        if answer.status >= 400:
            refused = refusal(answer, credentials=self._workers.credentials)
            auth = answer.status in (401, 403)
            return ConnectWorker(url, problem=f"answered / with {answer.status} ({refused})"), refused if auth else None
        return worker_of(url, answer.body), None

    # --- reads ------------------------------------------------------------------------------------------------------
    def connectors_answer(self, *, prefer: Sequence[str] = ()) -> dict[str, Any]:
        """`GET /connectors?expand=status&expand=info` as the worker answered it (its key order kept), its secrets
        hidden."""
        if prefer and self.urls[self._workers.first] not in prefer:
            self._workers.first = self.urls.index(prefer[0])
        body = self._workers.call("GET", EXPANDED).body
        if not isinstance(body, dict):
            raise ConnectError(f"{self.answered} answered /connectors with something that is not Connect's answer")
        return masked_connectors(body, self.password_keys)

    def password_keys(self, class_name: str) -> PasswordKeys:
        """The settings the plugin `class_name` declares PASSWORD: asked once, and again only after a failure."""
        kept = self._passwords.get(class_name)
        if kept is not None and (kept[0].known or time.monotonic() - kept[1] < DEFINITIONS_RETRY_S):
            return kept[0]
        keys = UNKNOWN
        if class_name:
            try:
                keys = password_keys_of(self._aside(self._definitions(class_name)))
            except KafkatopError:
                pass  # not known: the connector's config shows Connect's own settings only, until it is
        self._passwords[class_name] = (keys, time.monotonic())
        return keys

    def _aside(self, path: str) -> Any:
        """`GET path` for a request being served: which worker answered that one, and which it passed over, stay
        what its caller reads."""
        said = self._workers.first, self._workers.passed
        try:
            return self._workers.call("GET", path).body
        finally:
            self._workers.first, self._workers.passed = said

    def status_answer(self, name: str) -> Any:
        """`GET /connectors/NAME/status`, its traces without the connector's secrets."""
        return self._without_secrets(name, self._workers.call("GET", f"/connectors/{_segment(name)}/status").body)

    def info_answer(self, name: str) -> Any:
        """`GET /connectors/NAME`: its name, config (its secrets hidden), tasks and type."""
        body = self._workers.call("GET", f"/connectors/{_segment(name)}").body
        return masked_info(body, self.password_keys(class_of(body)))

    def _without_secrets(self, name: str, status: Any) -> Any:
        """A status answer whose traces may quote the connector's secrets: taken out, its config asked for them (only
        when there is a trace). A config that cannot be read leaves the traces as they are: the call answered."""
        if not has_trace(status):
            return status
        try:
            info = self._aside(f"/connectors/{_segment(name)}")
        except KafkatopError:
            return status
        config = info.get("config") if isinstance(info, Mapping) else None
        if not isinstance(config, Mapping):
            return status
        return scrubbed_status(status, secrets_in(config, self.password_keys(class_of(info))))

    def status(self, name: str) -> Connector:
        """One connector with its tasks, each with its worker and a failed one's trace, and its config."""
        status = self.status_answer(name)
        connector = status_of(status, self.info_answer(name), self.answered)
        return noted(connector) if self.local else connector

    def plugins_answer(self, *, connectors_only: bool = False) -> Any:
        suffix = "" if connectors_only else "?connectorsOnly=false"
        return self._workers.call("GET", f"/connector-plugins{suffix}").body

    def plugins(self) -> tuple[ConnectorPlugin, ...]:
        return plugins_of(self.plugins_answer(), self.answered)

    def plugin_config_answer(self, class_name: str) -> Any:
        """`GET /connector-plugins/CLASS/config`: the definition of each of its settings."""
        return masked_definitions(self._workers.call("GET", self._definitions(class_name)).body)

    @staticmethod
    def _definitions(class_name: str) -> str:
        return f"/connector-plugins/{_segment(class_name)}/config"

    def validate_answer(self, config: Mapping[str, str]) -> Any:
        """The worker's validation, each secret's value hidden (in its errors too)."""
        class_name = config.get("connector.class", "").strip()
        if not class_name:
            raise ConnectRefused("the config has no connector.class: nothing to validate it against")
        path = f"/connector-plugins/{_segment(class_name)}/config/validate"
        with self._hiding(config, class_name):
            return masked_validation(self._workers.call("PUT", path, dict(config)).body)

    def validate(self, config: Mapping[str, str]) -> Validation:
        return validation_of(self.validate_answer(config), self.answered)

    def offsets_answer(self, name: str) -> Any:
        return self._workers.call("GET", f"/connectors/{_segment(name)}/offsets").body

    def offsets(self, name: str) -> tuple[ConnectorOffset, ...]:
        return offsets_of(self.offsets_answer(name), self.answered)

    # --- writes -----------------------------------------------------------------------------------------------------
    def create_answer(self, name: str, config: Mapping[str, str]) -> Any:
        """`POST /connectors`: the connector as created (its name, config with its secrets hidden, tasks, type). The
        config is sent as given: never one read back from a worker, whose secrets kafkatop has hidden."""
        class_name = config.get("connector.class", "").strip()
        _segment(name)  # a name no later request could address is refused before it is created
        with self._hiding(config, class_name):
            body = self._workers.call("POST", "/connectors", {"name": name, "config": dict(config)}).body
        return masked_info(body, self.password_keys(class_name))

    @contextmanager
    def _hiding(self, config: Mapping[str, str], class_name: str) -> Iterator[None]:
        """A worker's refusal of `config`, its secrets taken out: Connect may quote a value it refuses."""
        try:
            yield
        except KafkatopError as e:
            quoted = {k: v for k, v in config.items() if len(v) >= SHORTEST_SCRUBBED and v in str(e)}
            secrets = secrets_in(quoted, self.password_keys(class_name)) if quoted else ()  # asked only then
            if secrets:
                said = scrubbed(str(e), secrets)
                raise (ConnectRefused(said) if isinstance(e, ConnectRefused) else ConnectError(said)) from None
            raise

    def create(self, name: str, config: Mapping[str, str]) -> None:
        self.create_answer(name, config)

    def pause(self, name: str) -> None:
        self._workers.call("PUT", f"/connectors/{_segment(name)}/pause")

    def resume(self, name: str) -> None:
        self._workers.call("PUT", f"/connectors/{_segment(name)}/resume")

    def stop(self, name: str) -> None:
        self._workers.call("PUT", f"/connectors/{_segment(name)}/stop")

    def restart_answer(self, name: str, *, include_tasks: bool = False, only_failed: bool = False) -> Any:
        """`POST /connectors/NAME/restart?includeTasks=&onlyFailed=`: with either, 202 and the status with what is
        restarting (state RESTARTING); without, 204 and no body (None)."""
        query = urllib.parse.urlencode({"includeTasks": str(include_tasks).lower(),
                                        "onlyFailed": str(only_failed).lower()})  # fmt: skip
        return self._without_secrets(
            name, self._workers.call("POST", f"/connectors/{_segment(name)}/restart?{query}").body
        )

    def restart(self, name: str, *, include_tasks: bool = False, only_failed: bool = False) -> None:
        self.restart_answer(name, include_tasks=include_tasks, only_failed=only_failed)

    def delete(self, name: str) -> None:
        self._workers.call("DELETE", f"/connectors/{_segment(name)}")

    def reset_offsets(self, name: str) -> str:
        """`DELETE /connectors/NAME/offsets` (the connector must be STOPPED): the worker's message."""
        body = self._workers.call("DELETE", f"/connectors/{_segment(name)}/offsets").body
        message = body.get("message") if isinstance(body, dict) else None
        return message if isinstance(message, str) else f"the offsets of {name} were reset"

    def alter_offsets(self, name: str, offsets: Sequence[Mapping[str, Any]]) -> str:
        """`PATCH /connectors/NAME/offsets` with `{"offsets": [{"partition": …, "offset": …}, …]}` (KIP-875; the
        connector must be STOPPED; an offset of null removes that partition's): the worker's message."""
        body = self._workers.call("PATCH", f"/connectors/{_segment(name)}/offsets", {"offsets": list(offsets)}).body
        message = body.get("message") if isinstance(body, dict) else None
        return message if isinstance(message, str) else f"the offsets of {name} were altered"

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
