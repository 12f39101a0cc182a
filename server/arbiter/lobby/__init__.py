"""Who plays whom: the Matchmaker protocol and its implementations (first-come pairing today)."""

from .fifo import FifoMatchmaker
from .matchmaker import Matchmaker, Pairing, Seek, SeekKey

__all__ = ["FifoMatchmaker", "Matchmaker", "Pairing", "Seek", "SeekKey"]
