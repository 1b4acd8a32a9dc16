"""Records read and written: the producer and consumer consoles, the message browser, `kafkatop produce`."""
