"""`kafkatop api-versions`: the API versions each broker (or controller) serves, in kafka-broker-api-versions.sh's
lines: `HOST:PORT (id: N rack: R isFenced: false) -> (` and each API's versions, and the version Kafka 4.1's client
would use. Brokers in the tool's order (its HashMap<Node>'s)."""

from __future__ import annotations

import argparse

from kafkatop.backends.kafka.cluster.broker_versions import cluster_nodes, node_versions
from kafkatop.backends.model.api_keys import api_versions_text, node_text
from kafkatop.backends.model.java_order import hash_order, node_hash
from kafkatop.backends.protocol.describe_cluster import ClusterNode
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError


def cmd_api_versions(args: argparse.Namespace) -> int:
    if args.bootstrap_controller:
        if args.bootstrap_server:
            raise UsageError("give --bootstrap-server or --bootstrap-controller, not both")
        args.bootstrap_server = args.bootstrap_controller
    kafka = connection(args)
    nodes = cluster_nodes(kafka, args.timeout, controllers=bool(args.bootstrap_controller))
    # The tool prints its HashMap<Node>'s order; brokers sharing a bucket it lists in a shuffled order (Kafka's
    # Cluster shuffles its nodes), here by id.
    nodes = tuple(hash_order(sorted(nodes, key=lambda n: n.node_id), _node_hash))
    answers = node_versions(kafka, nodes, args.timeout)
    for a in answers:
        node = node_text(a.node.node_id, a.node.host, a.node.port, a.node.rack, a.node.fenced)
        print(f"{node} -> " + (f"ERROR: {a.error}" if a.error is not None else api_versions_text(a.offered)))
    return FAILED if any(a.error is not None for a in answers) else DONE


def _node_hash(node: ClusterNode) -> int:
    return node_hash(node.node_id, node.host, node.port, node.rack, node.fenced)
