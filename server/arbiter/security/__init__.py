"""What protects an arbiter that faces the internet: TLS (``tls``) and rate limits (``ratelimit``)."""
