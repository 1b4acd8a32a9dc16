"""Who may do what and with which secrets: ACLs, SCRAM users, client quotas, and Java key stores converted for
librdkafka."""
