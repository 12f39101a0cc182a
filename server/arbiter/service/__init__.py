"""The gRPC face of the arbiter: servicer, sessions, lobby and the server factory."""
