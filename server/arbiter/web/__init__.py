"""The ladder on the web (``arbiter serve --web``, ``arbiter web``): see docs/web.md."""
