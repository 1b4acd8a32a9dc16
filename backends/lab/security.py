"""A secured lab cluster (`kafkatop up --security ssl|sasl_plaintext|sasl_ssl`): what its brokers are given and what
its clients get.

SASL is SCRAM-SHA-512, with two users created when the storage is formatted (`kafka-storage.sh format --add-scram`):
`admin`, the brokers' own, and `client`, for clients. TLS uses a CA made for this lab and a certificate per broker for
127.0.0.1 and localhost, all PEM. Passwords are drawn at random. Everything lives in the lab's state directory:
`security/` (0700: the CA, each broker's key and certificate, the passwords, each 0600), `client.properties` and, on a
SASL lab, `admin.properties` (0600 both), in the Java client's own format, for Kafka's tools and kafkatop's
`--command-config` alike.

The KRaft controllers' listener stays PLAINTEXT on 127.0.0.1: SCRAM cannot secure it (its users live in the metadata
the controllers serve), and nothing but this machine can reach it.

With `--authorizer` (SASL only) every KRaft node runs `StandardAuthorizer`: no ACL, no access, and `admin` a super
user. The controllers need it too: the ACLs live in the metadata, and CreateAcls/DeleteAcls are forwarded to them.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from kafkatop.backends.lab.certs import cert_pem, key_pem, load_ca, new_ca, new_server_cert
from kafkatop.backends.lab.properties import parse_properties
from kafkatop.backends.lab.spec import SECURITY_PROTOCOLS, NodeSpec

CLIENT_PROPERTIES = "client.properties"
ADMIN_PROPERTIES = "admin.properties"
SECURITY_DIR = "security"
MECHANISM = "SCRAM-SHA-512"
ADMIN_USER = "admin"
CLIENT_USER = "client"
_SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_SECRETS = "passwords.properties"
AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
# Who the authorizer lets do everything (seen on Kafka 4.1). The brokers reach the controllers over the CONTROLLER
# listener, PLAINTEXT, as User:ANONYMOUS: without it as a super user on the controllers, a broker's first metadata
# Fetch is refused (CLUSTER_AUTHORIZATION_FAILED) and the broker exits. A request forwarded to the controllers
# (CreateAcls, CreateTopics) is judged as its sender, so admin is one there too; a controller without the authorizer
# refuses CreateAcls ("No Authorizer is configured"). Kafka has no per-listener super users, and a PLAINTEXT listener
# no principal but ANONYMOUS (only a principal builder class of one's own, or mutual TLS with mapping rules, would
# name the brokers there). It gives nothing away on the brokers' listener: SASL there makes every principal a SCRAM
# user, never ANONYMOUS; ANONYMOUS is only ever who comes through the controller listener, which binds 127.0.0.1 and
# was unauthenticated before. Broker-only nodes serve no controller listener: admin alone.
BROKER_SUPER_USERS = f"User:{ADMIN_USER}"
CONTROLLER_SUPER_USERS = f"User:{ADMIN_USER};User:ANONYMOUS"


def listener_name(security: str) -> str:
    """The brokers' listener (and its protocol): PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL."""
    return SECURITY_PROTOCOLS[security]


def uses_tls(security: str) -> bool:
    return security in ("ssl", "sasl_ssl")


def uses_sasl(security: str) -> bool:
    return security in ("sasl_plaintext", "sasl_ssl")


def write_private(path: Path, text: str | bytes) -> None:
    """Write a file only its owner can read (0600), replacing it whole."""
    data = text.encode() if isinstance(text, str) else text
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)  # an existing file kept its mode through O_CREAT
    os.replace(tmp, path)


def jaas_line(user: str, password: str) -> str:
    return f'{_SCRAM_MODULE} required username="{user}" password="{password}";'


def _password() -> str:
    # Letters and digits only: the value goes into a JAAS line and into `--add-scram 'SCRAM-SHA-512=[…]'`.
    return secrets.token_hex(16)


class LabSecurity:
    """The security material of one lab cluster, under its state directory; made on first use, then reused."""

    def __init__(self, state_dir: Path, cluster_name: str, security: str, authorizer: bool = False) -> None:
        self.state_dir = state_dir
        self.name = cluster_name
        self.security = security
        self.authorizer = authorizer
        self.dir = state_dir / SECURITY_DIR

    @property
    def enabled(self) -> bool:
        return self.security != "plaintext"

    @property
    def client_properties_path(self) -> Path:
        return self.state_dir / CLIENT_PROPERTIES

    @property
    def admin_properties_path(self) -> Path | None:
        """admin.properties, the `admin` user's settings: on a SASL lab only (SSL alone has no users)."""
        return self.state_dir / ADMIN_PROPERTIES if uses_sasl(self.security) else None

    @property
    def ca_path(self) -> Path:
        return self.dir / "ca.pem"

    def keystore_path(self, node: NodeSpec) -> Path:
        return self.dir / f"{node.name}.pem"

    # --- making it ---------------------------------------------------------------------------------------------
    def ensure(self, nodes: tuple[NodeSpec, ...]) -> None:
        """The passwords, the CA, a certificate for each broker in `nodes`, client.properties and admin.properties,
        where missing."""
        if not self.enabled:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o700)
        passwords = self.passwords()
        if uses_tls(self.security):
            ca_key_path = self.dir / "ca-key.pem"
            if not (self.ca_path.exists() and ca_key_path.exists()):
                ca_key, ca_cert = new_ca(self.name)
                write_private(ca_key_path, key_pem(ca_key))
                write_private(self.ca_path, cert_pem(ca_cert))
            ca_key, ca_cert = load_ca(ca_key_path.read_bytes(), self.ca_path.read_bytes())
            for node in nodes:
                path = self.keystore_path(node)
                if node.is_broker and not path.exists():
                    key, cert = new_server_cert(ca_key, ca_cert, f"{node.name}.{self.name}")
                    write_private(path, key_pem(key) + cert_pem(cert) + cert_pem(ca_cert))
        if not self.client_properties_path.exists():
            write_private(self.client_properties_path, self.client_properties_text(passwords))
        admin = self.admin_properties_path
        if admin is not None and not admin.exists():
            write_private(admin, self.client_properties_text(passwords, ADMIN_USER))

    def passwords(self) -> dict[str, str]:
        """{"admin", "client"}: drawn once, kept in security/passwords.properties (0600)."""
        path = self.dir / _SECRETS
        if path.exists():
            return parse_properties(path.read_text(encoding="utf-8"))
        drawn = {ADMIN_USER: _password(), CLIENT_USER: _password()}
        self.dir.mkdir(parents=True, exist_ok=True)
        write_private(
            path,
            "# kafkatop lab cluster passwords: SCRAM users admin (the brokers') and client\n"
            + "".join(f"{k}={v}\n" for k, v in drawn.items()),
        )
        return drawn

    def client_settings(self, passwords: Mapping[str, str], user: str = CLIENT_USER) -> dict[str, str]:
        """The Java client settings of the lab's `client` user (or `admin`): security.protocol, SASL, the lab's CA; {}
        when plaintext. Secrets: for 0600 files only (client.properties, admin.properties, a Connect worker's
        properties)."""
        if not self.enabled:
            return {}
        settings = {"security.protocol": listener_name(self.security)}
        if uses_sasl(self.security):
            settings |= {
                "sasl.mechanism": MECHANISM,
                "sasl.jaas.config": jaas_line(user, passwords[user]),
            }
        if uses_tls(self.security):
            settings |= {"ssl.truststore.type": "PEM", "ssl.truststore.location": str(self.ca_path)}
        return settings

    def worker_settings(self) -> dict[str, str]:
        """A Connect worker's client settings: the `client` user's; `admin`'s where the lab has an authorizer, whose
        ACLs a worker would need on its group, its three internal topics and every connector's topics, or it stops."""
        user = ADMIN_USER if self.authorizer and uses_sasl(self.security) else CLIENT_USER
        return self.client_settings(self.passwords(), user)

    def client_properties_text(self, passwords: Mapping[str, str], user: str = CLIENT_USER) -> str:
        """client.properties (or admin.properties for `user` admin)."""
        protocol = listener_name(self.security)
        who = f"user {user}'s settings" if uses_sasl(self.security) else "client settings"
        lines = [f"# kafkatop lab cluster {self.name!r}: {who} for {protocol}, in Kafka's Java client format."]
        if not uses_sasl(self.security):
            lines.append("# For Kafka's tools (--command-config) and kafkatop (used by itself for this lab).")
        elif user == ADMIN_USER:
            lines.append("# admin is the brokers' own user (a super user where the lab has an authorizer). For Kafka's")
            lines.append("# tools (--command-config) and kafkatop, which uses it for this lab unless --command-config.")
        else:
            lines.append("# For Kafka's tools and kafkatop: --command-config (kafkatop uses admin.properties itself).")
        lines += [f"{key}={_escape(value)}" for key, value in self.client_settings(passwords, user).items()]
        return "\n".join(lines) + "\n"

    # --- what the brokers and the format get -------------------------------------------------------------------
    def node_settings(self, node: NodeSpec) -> dict[str, str | None]:
        """server.properties of a KRaft node (broker, controller or combined) on a secured lab: the brokers'
        listener and, with an authorizer, the authorizer's; {} for a plaintext lab."""
        return self.broker_settings(node) | self.authorizer_settings(node)

    def authorizer_settings(self, node: NodeSpec) -> dict[str, str | None]:
        """StandardAuthorizer on every broker and controller: no ACL, no access; super users as above."""
        if not (self.authorizer and uses_sasl(self.security)) or not (node.is_broker or node.is_controller):
            return {}
        return {
            "authorizer.class.name": AUTHORIZER,
            "allow.everyone.if.no.acl.found": "false",
            "super.users": CONTROLLER_SUPER_USERS if node.is_controller else BROKER_SUPER_USERS,
        }

    def broker_settings(self, node: NodeSpec) -> dict[str, str | None]:
        """server.properties of a broker (or combined node) on a secured lab; {} for a plaintext one."""
        if not self.enabled or not node.is_broker:
            return {}
        passwords = self.passwords()
        listener = listener_name(self.security)
        settings: dict[str, str | None] = {}
        if uses_tls(self.security):
            settings |= {
                "ssl.keystore.type": "PEM",
                "ssl.keystore.location": str(self.keystore_path(node)),
                "ssl.truststore.type": "PEM",
                "ssl.truststore.location": str(self.ca_path),
                "ssl.client.auth": "none",
            }
        if uses_sasl(self.security):
            prefix = f"listener.name.{listener.lower()}.{MECHANISM.lower()}"
            settings |= {
                "sasl.enabled.mechanisms": MECHANISM,
                "sasl.mechanism.inter.broker.protocol": MECHANISM,
                f"{prefix}.sasl.jaas.config": jaas_line(ADMIN_USER, passwords[ADMIN_USER]),
            }
        return settings

    def redact(self, text: str) -> str:
        """`text` (a tool's output) with the lab's passwords replaced by ***."""
        if not uses_sasl(self.security):
            return text
        for password in self.passwords().values():
            text = text.replace(password, "***")
        return text

    def format_arguments(self) -> list[str]:
        """`kafka-storage.sh format` arguments that create the SCRAM users: secrets, so never for a command line
        (any local user reads /proc/PID/cmdline); the runner hands them to the JVM in a 0600 argument file."""
        if not uses_sasl(self.security):
            return []
        passwords = self.passwords()
        return [
            arg
            for user in (ADMIN_USER, CLIENT_USER)
            for arg in ("--add-scram", f"{MECHANISM}=[name={user},password={passwords[user]}]")
        ]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\")


def java_argument_file(arguments: list[str]) -> str:
    """The text of a java launcher @argument file holding `arguments` (a main class and its arguments): each one
    quoted, so a path with a space stays one argument."""
    return "".join('"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"\n' for a in arguments)
