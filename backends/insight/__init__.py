"""What the model means over time and in words: history for sparklines, leader and ISR changes, the failover timeline,
kafka-topics' describe layout. Pure: it imports only the model.
"""
