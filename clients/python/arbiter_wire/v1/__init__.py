"""Generated from proto/arbiter/v1 by proto/generate.py; do not edit."""
