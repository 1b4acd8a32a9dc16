"""A cluster's feature levels (KIP-584): what the broker asked supports, what the cluster has finalized, and the
lines `kafka-features.sh describe` prints of them (standard library only)."""

from __future__ import annotations

from dataclasses import dataclass

METADATA_VERSION = "metadata.version"
ELR_FEATURE = "eligible.leader.replicas.version"  # KIP-966: partitions keep eligible leader replicas (ELR)
# metadata.version's levels and their names, as Kafka's MetadataVersion enum names them (3.0-IV1 is level 1; Kafka
# 4.x's enum starts at 3.3-IV3, and its tool prints "UNKNOWN n" for the older ones, which kafkatop names).
METADATA_VERSIONS: dict[int, str] = {
    1: "3.0-IV1", 2: "3.1-IV0", 3: "3.2-IV0", 4: "3.3-IV0", 5: "3.3-IV1", 6: "3.3-IV2", 7: "3.3-IV3",
    8: "3.4-IV0", 9: "3.5-IV0", 10: "3.5-IV1", 11: "3.5-IV2", 12: "3.6-IV0", 13: "3.6-IV1", 14: "3.6-IV2",
    15: "3.7-IV0", 16: "3.7-IV1", 17: "3.7-IV2", 18: "3.7-IV3", 19: "3.7-IV4", 20: "3.8-IV0", 21: "3.9-IV0",
    22: "4.0-IV0", 23: "4.0-IV1", 24: "4.0-IV2", 25: "4.0-IV3", 26: "4.1-IV0", 27: "4.1-IV1", 28: "4.2-IV0",
    29: "4.2-IV1",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Feature:
    name: str
    supported_min: int
    supported_max: int
    finalized_level: int  # 0: not finalized (off)


@dataclass(frozen=True, slots=True)
class FeatureLevels:
    broker: str  # the address that answered
    features: tuple[Feature, ...]  # by name
    epoch: int | None  # of the finalized levels; None: the broker sent none

    def level(self, name: str) -> int:
        return next((f.finalized_level for f in self.features if f.name == name), 0)

    @property
    def elr_enabled(self) -> bool:
        """Eligible leader replicas (KIP-966) finalized: partitions carry their ELR."""
        return self.level(ELR_FEATURE) >= 1


def level_text(feature: str, level: int) -> str:
    """A level as kafka-features.sh writes it: metadata.version's by name, the others as numbers."""
    if feature != METADATA_VERSION:
        return str(level)
    return METADATA_VERSIONS.get(level, f"UNKNOWN {level}")


def format_features(levels: FeatureLevels) -> str:
    """`kafka-features.sh describe`'s lines, without a trailing newline."""
    epoch = "-" if levels.epoch is None else str(levels.epoch)
    return "\n".join(
        f"Feature: {f.name}\tSupportedMinVersion: {level_text(f.name, f.supported_min)}"
        f"\tSupportedMaxVersion: {level_text(f.name, f.supported_max)}"
        f"\tFinalizedVersionLevel: {level_text(f.name, f.finalized_level)}\tEpoch: {epoch}"
        for f in levels.features
    )


def features_json(levels: FeatureLevels) -> dict[str, object]:
    return {
        "broker": levels.broker,
        "epoch": levels.epoch,
        "features": [
            {"name": f.name, "supported_min": f.supported_min, "supported_max": f.supported_max,
             "finalized_level": f.finalized_level, "finalized": level_text(f.name, f.finalized_level)}
            for f in levels.features
        ],
    }  # fmt: skip
