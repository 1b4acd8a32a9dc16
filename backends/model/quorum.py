"""The KRaft quorum as `kafka-metadata-quorum.sh describe --status --replication` shows it (standard library only)."""

from __future__ import annotations

from dataclasses import dataclass

METADATA_TOPIC = "__cluster_metadata"


METADATA_PARTITION = 0


# --- the snapshot ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class QuorumReplica:
    replica_id: int
    log_end_offset: int  # -1: unknown to the leader
    lag: int | None  # leader's log end offset - this one's, as kafka-metadata-quorum prints it; None when unknown
    last_fetch_ms_ago: int | None  # None: unknown (v0, or a voter that never fetched)
    last_caught_up_ms_ago: int | None
    directory_id: str | None = None  # v2+, Kafka's base64 form
    endpoints: tuple[str, ...] = ()  # v2+, voters only: "CONTROLLER://127.0.0.1:9093"


@dataclass(frozen=True, slots=True)
class QuorumSnapshot:
    taken_at: float  # time.time() when the response arrived
    leader_id: int  # -1: no leader right now
    leader_epoch: int
    high_watermark: int
    voters: tuple[QuorumReplica, ...]
    observers: tuple[QuorumReplica, ...]
    source: str = ""  # the address that answered
    via: str = "broker"  # "broker" (forwarded to the active controller) or "controller"
    api_version: int = 0  # the DescribeQuorum version both sides spoke

    @property
    def leader(self) -> QuorumReplica | None:
        return next((v for v in self.voters if v.replica_id == self.leader_id), None)

    @property
    def max_follower_lag(self) -> int | None:
        """MaxFollowerLag of `describe --status`: the leader's log end offset minus the furthest-behind voter's."""
        lags = [v.lag for v in self.voters if v.lag is not None]
        return max(lags) if lags else None
