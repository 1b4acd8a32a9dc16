"""The live view's Kafka Connect (its Connect tab), for the composition root (compose.py): the workers a context's
`connect-url` (or --connect-url) names, else a lab's own workers, asked through backends/connect's ConnectClient with
the client properties' basic auth and TLS (`connect.*` keys, as `kafkatop connect` reads them; a secured lab's own
connect-admin.properties); None where there are no workers to ask (the demo, a lab without workers, an attached
cluster naming none): the tab says why."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import TYPE_CHECKING

from kafkatop.backends.ports import ConnectCluster

if TYPE_CHECKING:
    from kafkatop.backends.lab.cluster import LabCluster

# Each request to a worker is bounded by this: a worker that hangs slows the Connect tab's poll (its own worker
# thread) by as much, never the rest of the view. A create waits for the group's leader to write the config, which a
# worker under load (or rebalancing) takes seconds to do.
TIMEOUT_S = 10.0


def connect_cluster(args: argparse.Namespace, lab: LabCluster | None, stack: ExitStack) -> ConnectCluster | None:
    given = tuple(getattr(args, "connect_url", None) or ())
    urls = given or (lab.connect_urls if lab is not None else ())
    if not urls:
        return None
    from kafkatop.backends.connect.auth import ConnectAuth
    from kafkatop.backends.connect.client import ConnectClient
    from kafkatop.tui.cli.connect_workers import auth, lab_auth

    # A lab's workers answer plain http on 127.0.0.1; a secured lab's ask for its admin (basic auth).
    settings = auth(args) if given else lab_auth(lab.snapshot().connect_admin_properties) if lab else ConnectAuth()
    # A lab's own workers run here: a FileStreamSource's missing file is looked for (and said) on this host.
    client = ConnectClient(urls, user_info=settings.user_info, ssl_context=settings.ssl_context, timeout_s=TIMEOUT_S,
                           local=not given and lab is not None)  # fmt: skip
    stack.callback(client.close)
    return client
