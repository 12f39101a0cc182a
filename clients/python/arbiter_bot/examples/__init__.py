"""Example bots, each runnable as ``python -m arbiter_bot.examples.<name>`` (see ``--help``).

Each bot module has a ``make_bot(seed)`` factory (used by ``python -m arbiter_bot.local``) and a ``main``;
``thinking`` and ``surge_model`` are helpers of the search bots, not bots.
"""
