"""Which doors of a secured lab its nodes' files leave open: a lab made before kafkatop locked them keeps its files
(written once, edited freely), so its controllers' listener may still be PLAINTEXT (with User:ANONYMOUS a super user
where it has an authorizer) and its Connect workers' REST API may ask no one. `kafkatop up` and `status` say so, and
how to get a locked lab; what is written for such a lab now (an added broker) reaches its controllers as they are."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from kafkatop.backends.lab.connect_auth import rest_auth_on
from kafkatop.backends.lab.properties import read_properties
from kafkatop.backends.lab.security import CONTROLLER_LISTENER, uses_sasl
from kafkatop.backends.lab.spec import NodeSpec
from kafkatop.backends.model.errors import KafkatopError


def listener_protocol(props: Mapping[str, str], listener: str) -> str:
    """The protocol `listener.security.protocol.map` gives `listener` (a listener named after a protocol, and none in
    the map, is that protocol)."""
    for entry in (props.get("listener.security.protocol.map") or "").split(","):
        name, _, protocol = entry.partition(":")
        if name.strip().upper() == listener.upper() and protocol.strip():
            return protocol.strip().upper()
    return listener.upper()


def controller_protocol_of(props: Mapping[str, str]) -> str:
    """The protocol of a KRaft node's controllers' listener, by its properties."""
    names = [n.strip() for n in (props.get("controller.listener.names") or CONTROLLER_LISTENER).split(",")]
    return listener_protocol(props, names[0] or CONTROLLER_LISTENER)


def written(
    nodes: Iterable[NodeSpec], config_path: Callable[[NodeSpec], Path]
) -> Iterator[tuple[NodeSpec, dict[str, str]]]:
    """Each node whose properties file exists, with its properties (an unreadable one is passed over)."""
    for node in nodes:
        path = config_path(node)
        if not path.is_file():
            continue
        try:
            yield node, read_properties(path)
        except KafkatopError:
            continue


def controllers_take_sasl(nodes: Iterable[NodeSpec], config_path: Callable[[NodeSpec], Path]) -> bool:
    """False when the lab's controllers' files say PLAINTEXT on their listener; True when they take SASL, or when
    none is written yet (a new lab, which gets SASL there)."""
    for _node, props in written((n for n in nodes if n.is_controller), config_path):
        return controller_protocol_of(props) != "PLAINTEXT"
    return True


def open_doors(security: str, nodes: Iterable[NodeSpec], config_path: Callable[[NodeSpec], Path]) -> list[str]:
    """A line for each door of a secured lab its files leave open; [] for a plaintext lab (every door open, as asked)
    and for a lab made locked."""
    if security == "plaintext":
        return []
    nodes = tuple(nodes)
    notes = []
    if uses_sasl(security) and not controllers_take_sasl(nodes, config_path):
        notes.append(
            "its KRaft controllers' listener is PLAINTEXT (User:ANONYMOUS a super user where it has an authorizer): "
            "any process of this machine may act on it through --bootstrap-controller"
        )
    open_workers = [node.name for node, props in written((n for n in nodes if n.is_connect), config_path)
                    if not rest_auth_on(props)]  # fmt: skip
    if open_workers:
        notes.append(f"the REST API of {', '.join(open_workers)} asks for no credentials")
    return notes
