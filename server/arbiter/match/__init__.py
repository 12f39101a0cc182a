"""Matches: clocks, policies, the match state machine and its record. No gRPC here."""
