"""The Connect pipeline check: file → FileStreamSource → topic → FileStreamSink → file, a worker killed midway."""
