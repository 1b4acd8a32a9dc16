"""The PySpark pipeline: a Kafka data source, the counts job and the Spark service process, and the client that talks
to it. Never imported by the Textual app.
"""
