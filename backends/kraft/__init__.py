"""Adapters that speak KRaft's own requests over a plain socket (DescribeQuorum), where confluent-kafka has no API."""
