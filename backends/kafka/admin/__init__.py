"""The AdminClient source's poll: one ClusterSnapshot from a handful of batched requests, the slow-changing
reads (configs, the cluster's mode) and the feature levels and ELR it asks of a kept connection."""
