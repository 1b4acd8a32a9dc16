"""The files a lab cluster's nodes are started with, written once (a user's edits survive): each node's properties,
from the install's stock file of its role, and on a secured lab the security material they name (security.py) and
the Connect workers' REST users (connect_auth.py)."""

from __future__ import annotations

from kafkatop.backends.lab.configs import node_properties, zookeeper_properties
from kafkatop.backends.lab.connect_auth import ConnectRestAuth
from kafkatop.backends.lab.doors import controllers_take_sasl
from kafkatop.backends.lab.security import LabSecurity, write_private
from kafkatop.backends.lab.spec import NodeSpec
from kafkatop.backends.lab.state import LabState
from kafkatop.backends.lab.workers import FILE_CONNECTORS, worker_properties
from kafkatop.backends.model.nodes import ProcessRole


def lab_security(state: LabState, *, controller_sasl: bool = True) -> LabSecurity:
    spec = state.spec
    return LabSecurity(
        state.state_dir,
        spec.name,
        spec.security,
        spec.authorizer,
        controller_sasl=controller_sasl,
        issuer_port=spec.first_issuer_port,
    )


def rest_auth(state: LabState) -> ConnectRestAuth:
    """The Connect workers' REST basic auth (on a secured lab)."""
    return ConnectRestAuth(state.state_dir, state.spec.name)


def write_node_files(state: LabState, nodes: tuple[NodeSpec, ...]) -> None:
    """The security material where missing, and each of `nodes`' properties file where missing."""
    # A lab whose controllers' files say PLAINTEXT (made before kafkatop took SASL there) keeps it: a file written for
    # it now (an added broker's) must reach its controllers as they are.
    security = lab_security(state, controller_sasl=controllers_take_sasl(state.nodes, state.config_path))
    security.ensure(nodes)
    if security.enabled and any(n.is_connect for n in nodes):
        rest_auth(state).ensure(security.passwords())
    for node in nodes:
        path = state.config_path(node)
        if node.is_issuer or path.exists():  # the issuer's own files are the security material's
            continue
        text = node_text(state, node, security)
        if security.enabled:
            write_private(path, text)  # it holds a password (the brokers', or a worker's client user's)
        else:
            path.write_text(text, encoding="utf-8")


def node_text(state: LabState, node: NodeSpec, security: LabSecurity) -> str:
    """The properties file of `node`, from the stock file of its role."""
    stock = state.install.stock_config(state.mode, state.stock_role(node))
    stock_text = stock.read_text(encoding="utf-8", errors="replace")
    if node.is_connect:
        return worker_properties(
            stock_text,
            spec=state.spec,
            node=node,
            nodes=state.nodes,
            plugin_jars=state.install.jars(FILE_CONNECTORS),
            stock_path=stock,
            client_settings=security.worker_settings() if security.enabled else None,
            rest_settings=ConnectRestAuth.worker_settings() if security.enabled else None,
            service_loader=state.install.version.at_least(3, 6),
        )
    if node.role is ProcessRole.ZOOKEEPER:
        return zookeeper_properties(
            stock_text, spec=state.spec, node=node, data_dir=state.data_dir(node), stock_path=stock
        )
    return node_properties(
        stock_text,
        spec=state.spec,
        mode=state.mode,
        node=node,
        nodes=state.nodes,
        log_dir=state.data_dir(node),
        stock_path=stock,
        security_settings=security.node_settings(node),
        controller_protocol=security.controller_protocol,
    )
