"""The web page: the aiohttp server (server.py), the SSE feed (feed.py), the access code
(access.py), the controls and what the page reads from outside (controls.py), and the
static files (static/)."""
