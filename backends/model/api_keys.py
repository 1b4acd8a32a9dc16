"""Kafka 4.1's client's API keys, as kafka-broker-api-versions.sh (NodeApiVersions.toString) reads them: each one's
name, its oldest and latest (stable) version, and whether a broker serves it (ApiKeys.clientApis(), each said
UNSUPPORTED when a broker does not offer it); and the tool's lines for one node. Standard library only.

The table is common/message/*Request.json of kafka-clients-4.1.0.jar: apiKey, name without "Request", validVersions
(latest minus one where latestVersionUnstable), and "broker" among its listeners. Keys 4–7 (the ZooKeeper controller's,
validVersions "none" in 4.x) are not in it: a node offering one is said as UNKNOWN(n), as the tool does."""

from __future__ import annotations

from collections.abc import Mapping

# fmt: off
API_KEYS: dict[int, tuple[str, int, int, bool]] = {  # key: (name, oldest version, latest version, served by brokers)
    0: ("Produce", 3, 13, True), 1: ("Fetch", 4, 18, True), 2: ("ListOffsets", 1, 10, True),
    3: ("Metadata", 0, 13, True), 8: ("OffsetCommit", 2, 9, True), 9: ("OffsetFetch", 1, 9, True),
    10: ("FindCoordinator", 0, 6, True), 11: ("JoinGroup", 0, 9, True), 12: ("Heartbeat", 0, 4, True),
    13: ("LeaveGroup", 0, 5, True), 14: ("SyncGroup", 0, 5, True), 15: ("DescribeGroups", 0, 6, True),
    16: ("ListGroups", 0, 5, True), 17: ("SaslHandshake", 0, 1, True), 18: ("ApiVersions", 0, 4, True),
    19: ("CreateTopics", 2, 7, True), 20: ("DeleteTopics", 1, 6, True), 21: ("DeleteRecords", 0, 2, True),
    22: ("InitProducerId", 0, 5, True), 23: ("OffsetForLeaderEpoch", 2, 4, True),
    24: ("AddPartitionsToTxn", 0, 5, True), 25: ("AddOffsetsToTxn", 0, 4, True), 26: ("EndTxn", 0, 5, True),
    27: ("WriteTxnMarkers", 1, 1, True), 28: ("TxnOffsetCommit", 0, 5, True), 29: ("DescribeAcls", 1, 3, True),
    30: ("CreateAcls", 1, 3, True), 31: ("DeleteAcls", 1, 3, True), 32: ("DescribeConfigs", 1, 4, True),
    33: ("AlterConfigs", 0, 2, True), 34: ("AlterReplicaLogDirs", 1, 2, True), 35: ("DescribeLogDirs", 1, 4, True),
    36: ("SaslAuthenticate", 0, 2, True), 37: ("CreatePartitions", 0, 3, True),
    38: ("CreateDelegationToken", 1, 3, True), 39: ("RenewDelegationToken", 1, 2, True),
    40: ("ExpireDelegationToken", 1, 2, True), 41: ("DescribeDelegationToken", 1, 3, True),
    42: ("DeleteGroups", 0, 2, True), 43: ("ElectLeaders", 0, 2, True), 44: ("IncrementalAlterConfigs", 0, 1, True),
    45: ("AlterPartitionReassignments", 0, 1, True), 46: ("ListPartitionReassignments", 0, 0, True),
    47: ("OffsetDelete", 0, 0, True), 48: ("DescribeClientQuotas", 0, 1, True), 49: ("AlterClientQuotas", 0, 1, True),
    50: ("DescribeUserScramCredentials", 0, 0, True), 51: ("AlterUserScramCredentials", 0, 0, True),
    52: ("Vote", 0, 2, False), 53: ("BeginQuorumEpoch", 0, 1, False), 54: ("EndQuorumEpoch", 0, 1, False),
    55: ("DescribeQuorum", 0, 2, True), 56: ("AlterPartition", 2, 3, False), 57: ("UpdateFeatures", 0, 2, True),
    58: ("Envelope", 0, 0, False), 59: ("FetchSnapshot", 0, 1, False), 60: ("DescribeCluster", 0, 2, True),
    61: ("DescribeProducers", 0, 0, True), 62: ("BrokerRegistration", 0, 4, False),
    63: ("BrokerHeartbeat", 0, 1, False), 64: ("UnregisterBroker", 0, 0, True),
    65: ("DescribeTransactions", 0, 0, True), 66: ("ListTransactions", 0, 2, True),
    67: ("AllocateProducerIds", 0, 0, False), 68: ("ConsumerGroupHeartbeat", 0, 1, True),
    69: ("ConsumerGroupDescribe", 0, 1, True), 70: ("ControllerRegistration", 0, 0, False),
    71: ("GetTelemetrySubscriptions", 0, 0, True), 72: ("PushTelemetry", 0, 0, True),
    73: ("AssignReplicasToDirs", 0, 0, False), 74: ("ListConfigResources", 0, 1, True),
    75: ("DescribeTopicPartitions", 0, 0, True), 76: ("ShareGroupHeartbeat", 1, 1, True),
    77: ("ShareGroupDescribe", 1, 1, True), 78: ("ShareFetch", 1, 1, True), 79: ("ShareAcknowledge", 1, 1, True),
    80: ("AddRaftVoter", 0, 0, True), 81: ("RemoveRaftVoter", 0, 0, True), 82: ("UpdateRaftVoter", 0, 0, False),
    83: ("InitializeShareGroupState", 0, 0, True), 84: ("ReadShareGroupState", 0, 0, True),
    85: ("WriteShareGroupState", 0, 0, True), 86: ("DeleteShareGroupState", 0, 0, True),
    87: ("ReadShareGroupStateSummary", 0, 0, True), 88: ("StreamsGroupHeartbeat", 0, -1, True),
    89: ("StreamsGroupDescribe", 0, -1, True), 90: ("DescribeShareGroupOffsets", 0, 0, True),
    91: ("AlterShareGroupOffsets", 0, 0, True), 92: ("DeleteShareGroupOffsets", 0, 0, True),
}
# fmt: on


def _usable(key: int, low: int, high: int) -> str:
    _, oldest, latest, _ = API_KEYS[key]
    if latest < low:
        return " [unusable: node too new]"
    if high < oldest:
        return " [unusable: node too old]"
    return f" [usable: {min(latest, high)}]"


def _entry(key: int, low: int, high: int) -> str:
    versions = str(low) if low == high else f"{low} to {high}"
    if key not in API_KEYS:
        return f"UNKNOWN({key}): {versions}"
    return f"{API_KEYS[key][0]}({key}): {versions}{_usable(key, low, high)}"


def api_versions_text(offered: Mapping[int, tuple[int, int]]) -> str:
    """NodeApiVersions.toString(true): every API the node offers, and every one brokers serve that it does not
    (UNSUPPORTED), by key; one a line, each after a tab."""
    entries = {key: _entry(key, low, high) for key, (low, high) in offered.items()}
    for key, (name, _, _, broker) in API_KEYS.items():
        if broker and key not in entries:
            entries[key] = f"{name}({key}): UNSUPPORTED"
    return "(\n\t" + ",\n\t".join(entries[k] for k in sorted(entries)) + "\n)"


def node_text(node_id: int, host: str, port: int, rack: str | None, fenced: bool) -> str:
    """org.apache.kafka.common.Node.toString() of Kafka 4.1."""
    shown_rack = rack if rack is not None else "null"
    return f"{host}:{port} (id: {node_id} rack: {shown_rack} isFenced: {'true' if fenced else 'false'})"
