"""The gateway's HTTP and WebSocket routes, one router per subject (web: the page and its
files; play: the WebSocket; games, accounts, admin, tables, matches, health); the app
(services/gateway/app.py ``app_for``) includes them."""
