"""A secured lab cluster (`kafkatop up --security ssl|sasl_plaintext|sasl_ssl|sasl_oauthbearer`): what its brokers
are given and what its clients get.

SASL is SCRAM-SHA-512, with two users created when the storage is formatted (`kafka-storage.sh format --add-scram`):
`admin`, the brokers' own, and `client`, for clients. TLS uses a CA made for this lab and a certificate per broker for
127.0.0.1 and localhost, all PEM. Passwords are drawn at random. Everything lives in the lab's state directory:
`security/` (0700: the CA, each broker's key and certificate, the passwords, each 0600), `client.properties` and, on a
SASL lab, `admin.properties` and `controller-admin.properties` (0600 all), in the Java client's own format, for Kafka's
tools and kafkatop's `--command-config` alike.

On a SASL lab the KRaft controllers' listener (CONTROLLER, on 127.0.0.1) takes SASL_PLAINTEXT with mechanism PLAIN,
user `admin` and its password, from the nodes' own properties (`listener.name.controller.plain.sasl.jaas.config`):
SCRAM cannot secure it, since its users live in the metadata the controllers serve, while PLAIN's live in the file.
The brokers and the other controllers log in there as admin; so do Kafka's tools with `--bootstrap-controller` and
controller-admin.properties (SASL_PLAINTEXT, PLAIN), which admin.properties (the brokers' listener, SCRAM) cannot
serve. A process of this machine with no password gets nothing from a controller. No TLS there, even on a sasl_ssl
lab: the listener binds 127.0.0.1, where only this machine's root could watch the password go by, and controllers
have no certificate. On a TLS-only lab (no users) the controllers' listener stays PLAINTEXT on 127.0.0.1. A lab whose
controllers' files were written before (PLAINTEXT there) keeps them: its nodes' files are written once, and a node
added to it reaches its controllers as they are (`controller_sasl=False`; backends/lab/doors.py says so). A secured
lab's Connect workers ask for admin on their REST API too (connect_auth.py).

On sasl_oauthbearer the brokers take OAUTHBEARER instead of SCRAM: admin and client are the clients of an OIDC issuer
that is one of the lab's nodes, their passwords its secrets (oauth.py). The controllers' listener keeps PLAIN.

With `--authorizer` (SASL only) every KRaft node runs `StandardAuthorizer`: no ACL, no access, and `admin` the one
super user, on brokers and controllers alike. The controllers need it too: the ACLs live in the metadata, and
CreateAcls/DeleteAcls are forwarded to them.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from kafkatop.backends.lab.oauth import ISSUER_DIR, OAUTHBEARER, LabIssuer
from kafkatop.backends.lab.properties import parse_properties
from kafkatop.backends.lab.spec import SASL_SECURITY, SECURITY_PROTOCOLS, NodeSpec

CLIENT_PROPERTIES = "client.properties"
ADMIN_PROPERTIES = "admin.properties"
CONTROLLER_ADMIN_PROPERTIES = "controller-admin.properties"
SECURITY_DIR = "security"
MECHANISM = "SCRAM-SHA-512"
CONTROLLER_MECHANISM = "PLAIN"  # the controllers' listener: its users are in the nodes' files, not the metadata
CONTROLLER_LISTENER = "CONTROLLER"
ADMIN_USER = "admin"
CLIENT_USER = "client"
_SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
_SECRETS = "passwords.properties"
AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
# Who the authorizer lets do everything (seen on Kafka 4.1): admin, on every node. The brokers reach the controllers
# as admin (SASL PLAIN on the controllers' listener): a controller that did not count it as a super user would refuse
# a broker's first metadata Fetch (CLUSTER_AUTHORIZATION_FAILED), and the broker would exit. A request forwarded to
# the controllers (CreateAcls, CreateTopics) is judged as its sender, admin or not; a controller without the
# authorizer refuses CreateAcls ("No Authorizer is configured").
SUPER_USERS = f"User:{ADMIN_USER}"
# Only for a lab whose controllers' listener was written PLAINTEXT before kafkatop took SASL there: its brokers reach
# it as User:ANONYMOUS, which its controllers' files name a super user, so a node written again for it must too.
_PLAINTEXT_CONTROLLER_SUPER_USERS = f"{SUPER_USERS};User:ANONYMOUS"


def listener_name(security: str) -> str:
    """The brokers' listener (and its protocol): PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL."""
    return SECURITY_PROTOCOLS[security]


def uses_tls(security: str) -> bool:
    return security in ("ssl", "sasl_ssl")


def uses_sasl(security: str) -> bool:
    return security in SASL_SECURITY


def mechanism(security: str) -> str:
    """The brokers' SASL mechanism: OAUTHBEARER on an OAuth lab, else SCRAM-SHA-512."""
    return OAUTHBEARER if security == "sasl_oauthbearer" else MECHANISM


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


def plain_jaas_line(user: str, password: str, *, serves: bool = False) -> str:
    """PlainLoginModule's JAAS line: `username` and `password`, what a node logs in to the controllers with (and a
    tool); on a node that serves the controllers' listener also `user_USER`, the one user it lets in there."""
    served = f' user_{user}="{password}"' if serves else ""
    return f'{_PLAIN_MODULE} required username="{user}" password="{password}"{served};'


def _password() -> str:
    # Letters and digits only: the value goes into a JAAS line and into `--add-scram 'SCRAM-SHA-512=[…]'`.
    return secrets.token_hex(16)


class LabSecurity:
    """The security material of one lab cluster, under its state directory; made on first use, then reused."""

    def __init__(
        self,
        state_dir: Path,
        cluster_name: str,
        security: str,
        authorizer: bool = False,
        *,
        controller_sasl: bool = True,
        issuer_port: int | None = None,
    ) -> None:
        self.state_dir = state_dir
        self.name = cluster_name
        self.security = security
        self.authorizer = authorizer
        self.dir = state_dir / SECURITY_DIR
        # SASL on the controllers' listener: every SASL lab, but one whose controllers' files say PLAINTEXT (written
        # before kafkatop took SASL there), where a file written now (an added broker's) reaches them as they are.
        self.controller_sasl = controller_sasl and uses_sasl(security)
        # An OAuth lab's issuer (its port: the spec's); None on any other lab.
        self.issuer = (
            LabIssuer(self.dir / ISSUER_DIR, issuer_port)
            if security == "sasl_oauthbearer" and issuer_port is not None
            else None
        )

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
    def controller_protocol(self) -> str:
        """The controllers' listener's protocol: SASL_PLAINTEXT (mechanism PLAIN) on a SASL lab, else PLAINTEXT."""
        return "SASL_PLAINTEXT" if self.controller_sasl else "PLAINTEXT"

    @property
    def controller_admin_properties_path(self) -> Path | None:
        """controller-admin.properties, the `admin` user's settings for the controllers' listener
        (`--bootstrap-controller`): where it takes SASL."""
        return self.state_dir / CONTROLLER_ADMIN_PROPERTIES if self.controller_sasl else None

    @property
    def ca_path(self) -> Path:
        return self.dir / "ca.pem"

    def keystore_path(self, node: NodeSpec) -> Path:
        return self.dir / f"{node.name}.pem"

    # --- making it ---------------------------------------------------------------------------------------------
    def ensure(self, nodes: tuple[NodeSpec, ...]) -> None:
        """The passwords, the CA, a certificate for each broker in `nodes`, client.properties, admin.properties and
        controller-admin.properties, where missing."""
        if not self.enabled:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o700)
        passwords = self.passwords()
        if uses_tls(self.security):
            # Here, not at the top: `cryptography` is ~60 ms of imports that every command naming a lab would pay.
            from kafkatop.backends.lab.certs import cert_pem, key_pem, load_ca, new_ca, new_server_cert

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
        if self.issuer is not None:  # rewritten each time: the clients are the passwords, which a user may change
            self.issuer.folder.mkdir(exist_ok=True)
            os.chmod(self.issuer.folder, 0o700)
            write_private(self.issuer.clients_path, self.issuer.clients_text(passwords))
        if not self.client_properties_path.exists():
            write_private(self.client_properties_path, self.client_properties_text(passwords))
        admin = self.admin_properties_path
        if admin is not None and not admin.exists():
            write_private(admin, self.client_properties_text(passwords, ADMIN_USER))
        controller_admin = self.controller_admin_properties_path
        if controller_admin is not None and not controller_admin.exists():
            write_private(controller_admin, self.controller_admin_text(passwords))

    def passwords(self) -> dict[str, str]:
        """{"admin", "client"}: drawn once, kept in security/passwords.properties (0600)."""
        path = self.dir / _SECRETS
        if path.exists():
            return parse_properties(path.read_text(encoding="utf-8"))
        drawn = {ADMIN_USER: _password(), CLIENT_USER: _password()}
        self.dir.mkdir(parents=True, exist_ok=True)
        write_private(
            path,
            "# kafkatop lab cluster passwords: SCRAM users admin (the brokers', also on the controllers' listener\n"
            "# and the Connect workers' REST API) and client\n" + "".join(f"{k}={v}\n" for k, v in drawn.items()),
        )
        return drawn

    def client_settings(self, passwords: Mapping[str, str], user: str = CLIENT_USER) -> dict[str, str]:
        """The Java client settings of the lab's `client` user (or `admin`): security.protocol, SASL, the lab's CA; {}
        when plaintext. Secrets: for 0600 files only (client.properties, admin.properties, a Connect worker's
        properties)."""
        if not self.enabled:
            return {}
        settings = {"security.protocol": listener_name(self.security)}
        if self.issuer is not None:
            settings |= self.issuer.client_settings(user, passwords[user])
        elif uses_sasl(self.security):
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
        if self.issuer is not None:
            lines.append(f"# OAUTHBEARER: tokens of client {user!r}, from the lab's OIDC issuer {self.issuer.url}.")
            option = self.issuer.allowed_urls_option()
            lines.append(f"# Kafka 4's tools fetch them only with: export KAFKA_OPTS={option}")
        lines += [f"{key}={_escape(value)}" for key, value in self.client_settings(passwords, user).items()]
        return "\n".join(lines) + "\n"

    def controller_client_settings(self, passwords: Mapping[str, str]) -> dict[str, str]:
        """The Java client settings of `admin` on the controllers' listener (`--bootstrap-controller`); {} where it
        takes no SASL. Secrets: for 0600 files only."""
        if not self.controller_sasl:
            return {}
        return {
            "security.protocol": self.controller_protocol,
            "sasl.mechanism": CONTROLLER_MECHANISM,
            "sasl.jaas.config": plain_jaas_line(ADMIN_USER, passwords[ADMIN_USER]),
        }

    def controller_admin_text(self, passwords: Mapping[str, str]) -> str:
        """controller-admin.properties: admin on the controllers' listener, for Kafka's tools."""
        lines = [
            f"# kafkatop lab cluster {self.name!r}: user admin's settings for the KRaft controllers' listener "
            f"({self.controller_protocol}, {CONTROLLER_MECHANISM}),",
            "# in Kafka's Java client format. For Kafka's tools with --bootstrap-controller 127.0.0.1:PORT "
            "--command-config FILE",
            "# (kafka-metadata-quorum.sh, kafka-acls.sh, kafka-features.sh, …); the brokers take admin.properties.",
        ]
        lines += [f"{key}={_escape(value)}" for key, value in self.controller_client_settings(passwords).items()]
        return "\n".join(lines) + "\n"

    # --- what the brokers and the format get -------------------------------------------------------------------
    def node_settings(self, node: NodeSpec) -> dict[str, str | None]:
        """server.properties of a KRaft node (broker, controller or combined) on a secured lab: the brokers'
        listener, the controllers' and, with an authorizer, the authorizer's; {} for a plaintext lab. The
        listener.security.protocol.map entry of the controllers' listener is configs.py's (`controller_protocol`)."""
        return self.broker_settings(node) | self.controller_listener_settings(node) | self.authorizer_settings(node)

    def controller_listener_settings(self, node: NodeSpec) -> dict[str, str | None]:
        """SASL PLAIN on the controllers' listener, admin's password (Kafka 4.1: `sasl.mechanism.controller.protocol`,
        and the listener's own mechanisms and JAAS). A controller (or combined node) serves it and lets admin alone
        in; every KRaft node, broker-only too, logs in to it as admin, with the same JAAS line's username/password
        (Kafka reads a node's login to the controllers from the listener's server-side JAAS)."""
        if not self.controller_sasl or not (node.is_broker or node.is_controller):
            return {}
        prefix = f"listener.name.{CONTROLLER_LISTENER.lower()}"
        password = self.passwords()[ADMIN_USER]
        settings: dict[str, str | None] = {
            "sasl.mechanism.controller.protocol": CONTROLLER_MECHANISM,
            f"{prefix}.{CONTROLLER_MECHANISM.lower()}.sasl.jaas.config": plain_jaas_line(
                ADMIN_USER, password, serves=node.is_controller
            ),
        }
        if node.is_controller:
            settings[f"{prefix}.sasl.enabled.mechanisms"] = CONTROLLER_MECHANISM
        return settings

    def authorizer_settings(self, node: NodeSpec) -> dict[str, str | None]:
        """StandardAuthorizer on every broker and controller: no ACL, no access; admin the super user (above)."""
        if not (self.authorizer and uses_sasl(self.security)) or not (node.is_broker or node.is_controller):
            return {}
        plaintext_controller = node.is_controller and not self.controller_sasl
        return {
            "authorizer.class.name": AUTHORIZER,
            "allow.everyone.if.no.acl.found": "false",
            "super.users": _PLAINTEXT_CONTROLLER_SUPER_USERS if plaintext_controller else SUPER_USERS,
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
        if self.issuer is not None:
            settings |= self.issuer.broker_settings(listener, passwords[ADMIN_USER])
        elif uses_sasl(self.security):
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
        if not uses_sasl(self.security) or self.issuer is not None:  # an OAuth lab's users are its issuer's clients
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
