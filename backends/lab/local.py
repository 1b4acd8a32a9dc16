"""Signalling a broker of an attached cluster that runs on this host — the labs' `kill -9 $(ps … | grep
server-1.properties)`, made precise: the process is the one listening on the port that the cluster's own metadata
gives for that broker id, and it is signalled only if it is still the process that was found."""

from __future__ import annotations

import os
import signal
import time

import psutil

from kafkatop.backends.lab.processes import ProcessSource
from kafkatop.backends.model.cluster import Broker
from kafkatop.backends.model.errors import KafkatopError
from kafkatop.backends.model.nodes import KafkaProcess


class LocalNodeError(KafkatopError):
    pass


def local_broker_process(broker: Broker, processes: tuple[KafkaProcess, ...] | None = None) -> KafkaProcess:
    """The JVM on this host that serves `broker` (it listens on the broker's advertised port)."""
    if processes is None:
        processes = ProcessSource().poll().processes
    found = [p for p in processes if broker.port in p.listening_ports]
    if not found:
        raise LocalNodeError(
            f"broker {broker.id} ({broker.address}) is not a process of this host that kafkatop can see: "
            "signal it where it runs"
        )
    return found[0]


def signal_local(process: KafkaProcess, kill: bool, timeout_s: float = 30.0) -> bool:
    """SIGKILL (kill -9) or SIGTERM (controlled shutdown) and wait for the exit; True when it exited in time."""
    try:
        handle = psutil.Process(process.pid)
        if abs(handle.create_time() - process.started_at) > 0.05:
            raise LocalNodeError(f"pid {process.pid} is no longer the broker that was found; nothing signalled")
        os.kill(process.pid, signal.SIGKILL if kill else signal.SIGTERM)
        return wait_gone(handle, timeout_s)
    except psutil.NoSuchProcess:
        return True
    except psutil.AccessDenied:
        raise LocalNodeError(f"pid {process.pid} belongs to another user; kafkatop cannot signal it") from None
    except PermissionError:
        raise LocalNodeError(f"pid {process.pid} belongs to another user; kafkatop cannot signal it") from None


def wait_gone(handle: psutil.Process, timeout_s: float) -> bool:
    """Exited, or a zombie: dead, waiting for its parent (a terminal's shell) to reap it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if handle.status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False
