"""Share groups (KIP-932), read and deleted as kafka-share-groups.sh does, over kafkatop's own protocol code."""
