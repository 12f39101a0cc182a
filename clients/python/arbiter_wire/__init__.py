"""The wire: the generated arbiter.v1 code, one codec per game, status helpers and shared limits."""
