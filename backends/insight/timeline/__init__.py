"""The failover timeline: model (what it shows), log (events and duplicates), incidents (step by step until the
cluster recovers), and Timeline (timeline.py), which the app's workers feed from every source."""
