"""A secured lab's Kafka Connect REST API asks who is there: HTTP basic auth by Kafka's own
connect-basic-auth-extension (`libs/connect-basic-auth-extension-*.jar`, on every worker's classpath).

A worker's properties name the extension (`rest.extension.classes`); its JVM is given a JAAS file whose `KafkaConnect`
section names the extension's PropertyFileLoginModule and the file of its users (`-Djava.security.auth.login.config`,
in KAFKA_OPTS). The one user is `admin`, with the lab's admin password: who holds it may already do everything on
the lab (admin.properties), and nobody else gets in. Every REST call then needs it, `GET /` too (401 without), but
the workers' own internal requests (task configs, fencing), which carry the group's session key instead.

The files, 0600 each, made where missing:
- `security/connect-users.properties` (`admin=PASSWORD`) and `security/connect-jaas.conf`: the workers';
- `connect-admin.properties` beside admin.properties: `connect.basic.auth.user.info=admin:PASSWORD`, what kafkatop's
  Connect client reads (backends/connect/auth.py), by itself for the lab, or as `kafkatop connect --command-config`;
- `connect.netrc`, for curl: `curl --netrc-file STATE/connect.netrc http://127.0.0.1:PORT/connectors`, no password on
  a command line (any local user reads /proc/PID/cmdline).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kafkatop.backends.lab.security import ADMIN_USER, SECURITY_DIR, write_private
from kafkatop.backends.lab.spec import HOST

REST_EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
_LOGIN_MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
_JAAS_SECTION = "KafkaConnect"  # the name the extension's filter logs in with
CONNECT_ADMIN_PROPERTIES = "connect-admin.properties"
CONNECT_NETRC = "connect.netrc"
REST_USER = ADMIN_USER
_USERS = "connect-users.properties"
_JAAS = "connect-jaas.conf"


@dataclass(frozen=True, slots=True)
class ConnectRestAuth:
    """The REST API's basic auth of one secured lab's workers, under its state directory."""

    state_dir: Path
    name: str  # the lab's, for the files' first lines

    @property
    def properties_path(self) -> Path:
        return self.state_dir / CONNECT_ADMIN_PROPERTIES

    @property
    def netrc_path(self) -> Path:
        return self.state_dir / CONNECT_NETRC

    @property
    def users_path(self) -> Path:
        return self.state_dir / SECURITY_DIR / _USERS

    @property
    def jaas_path(self) -> Path:
        return self.state_dir / SECURITY_DIR / _JAAS

    def ensure(self, passwords: Mapping[str, str]) -> None:
        """The four files, where missing (security/ exists: LabSecurity.ensure made it)."""
        password = passwords[ADMIN_USER]
        texts = {
            self.users_path: f"# kafkatop lab cluster {self.name!r}: the Connect workers' REST users (basic auth)\n"
            f"{REST_USER}={password}\n",
            self.jaas_path: self.jaas_text(),
            self.properties_path: self.properties_text(password),
            self.netrc_path: f"machine {HOST} login {REST_USER} password {password}\n",
        }
        for path, text in texts.items():
            if not path.exists():
                write_private(path, text)

    def jaas_text(self) -> str:
        """The JAAS file the workers' JVMs are given: its `KafkaConnect` section names the users' file."""
        users = str(self.users_path).replace("\\", "\\\\").replace('"', '\\"')  # a quoted JAAS value
        return f'{_JAAS_SECTION} {{\n  {_LOGIN_MODULE} required\n  file="{users}";\n}};\n'

    def properties_text(self, password: str) -> str:
        return (
            f"# kafkatop lab cluster {self.name!r}: the Kafka Connect workers' REST API as user {REST_USER} (basic "
            "auth).\n# kafkatop uses it by itself for this lab's workers; `kafkatop connect --command-config FILE` "
            f"too. curl: --netrc-file {self.netrc_path}\n"
            f"connect.basic.auth.user.info={REST_USER}:{password}\n"
        )

    def user_info(self, passwords: Mapping[str, str]) -> str:
        """USER:PASSWORD, for kafkatop's own requests to the workers (their readiness probe)."""
        return f"{REST_USER}:{passwords[ADMIN_USER]}"

    @staticmethod
    def worker_settings() -> dict[str, str]:
        """What a worker's properties get: the extension."""
        return {"rest.extension.classes": REST_EXTENSION}

    @staticmethod
    def jvm_option() -> str:
        """The JAAS file for a worker's KAFKA_OPTS: relative to the JVM's working directory, the lab's state directory
        (the runner starts it there), so that no path with a space is split by kafka-run-class.sh's word splitting."""
        return f"-Djava.security.auth.login.config={SECURITY_DIR}/{_JAAS}"


def rest_auth_on(worker: Mapping[str, str]) -> bool:
    """A worker's properties ask for basic auth on its REST API (a lab's worker written before kafkatop asked does
    not: its file is written once)."""
    return REST_EXTENSION in (worker.get("rest.extension.classes") or "")
