"""`tablebase serve`: the HTTP API (app.py, over answers.py) and the page (static/).

Imported only by the serve command and the tests: Starlette is not loaded at CLI startup."""
