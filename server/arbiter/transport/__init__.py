"""The gRPC side: events encoded for a seat, the thin servicer, the server factory."""
