"""Live sessions of bots: one per bot, its outbox, the mailbox of results it missed, authentication."""
