"""Lab clusters on this host: Kafka installs, cluster specs and generated configs, the supervisor (state and runner),
local JVMs and their control.
"""
