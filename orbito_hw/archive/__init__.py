"""The game archive: the SQLite store (store.py), the recorder that listens to the referee
(recorder.py) and the read side the web page uses (reading.py)."""
