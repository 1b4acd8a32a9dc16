"""A lab's feature levels asked for by `up` (--elr / --no-elr, --share-groups, or elr / share_groups in kafkatop.toml):
a new lab gets them when its storage is formatted; a lab formatted before gets them here, once it serves, with
UpdateFeatures (what `kafka-features.sh upgrade|downgrade --feature NAME=LEVEL` sends)."""

from __future__ import annotations

from collections.abc import Mapping

from kafkatop.backends.kafka.cluster.features import update_features
from kafkatop.backends.lab.spec import SpecError, feature_flags
from kafkatop.backends.model.connection import KafkaConnection
from kafkatop.backends.model.errors import KafkatopError

FEATURES_TIMEOUT_S = 30.0


def set_lab_features(
    connection: KafkaConnection, mode: str, wanted: Mapping[str, int], timeout_s: float = FEATURES_TIMEOUT_S
) -> str | None:
    """Set the `wanted` levels the cluster does not have yet; a line saying what was set, None when every level
    already was as asked. A KafkatopError says what failed and how to do it by hand."""
    if not wanted:
        return None
    flags = feature_flags(dict(wanted))
    if mode == "zk":
        raise SpecError(f"{flags}: this lab runs in ZooKeeper mode, and feature levels are a KRaft thing")
    try:
        updates = update_features(connection, wanted, min(timeout_s, FEATURES_TIMEOUT_S))
    except KafkatopError as e:
        by_hand = " ".join(f"--feature {name}={level}" for name, level in sorted(wanted.items()))
        raise KafkatopError(
            f"{flags}: the lab's storage was formatted before, and setting the levels now failed ({e}); "
            f"`kafka-features.sh --bootstrap-server {connection.bootstrap_servers} upgrade {by_hand}` (downgrade for "
            "a lower level) sets them by hand"
        ) from None
    if not updates:
        return None
    said = ", ".join(f"{u.name}={u.level}" for u in updates)
    return (
        f"feature levels set: {said} (this lab's storage was formatted before, so they were changed once it served, "
        "as kafka-features.sh upgrade/downgrade does)"
    )
