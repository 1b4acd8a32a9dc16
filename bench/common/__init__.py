"""What several benchmarks share: summary statistics and verdicts, hooks on a headless app, the machine's load and
memory, child processes, the KRaft lab, the ZooKeeper bench cluster, the event loop's lag."""
