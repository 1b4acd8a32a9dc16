"""`kafkatop features`: the cluster's feature levels, as `kafka-features.sh describe` prints them."""

from __future__ import annotations

import argparse
import json

from kafkatop.backends.kafka.cluster.features import describe_features
from kafkatop.backends.model.features import features_json, format_features
from kafkatop.backends.protocol.connection import Unsupported
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import DONE, FAILED, err


def cmd_features(args: argparse.Namespace) -> int:
    try:
        levels = describe_features(connection(args), args.timeout)
    except Unsupported as e:
        err(f"no feature levels to show: {e}")
        return FAILED
    if args.json:
        print(json.dumps(features_json(levels), indent=2))
    else:
        print(format_features(levels))
    return DONE
