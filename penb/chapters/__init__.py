"""One module per chapter: its presets (``PAPER``, ``QUICK``, ``SMOKE``) and its ``check``.

The module name is the chapter's name, which is also the stem of its notebook in
``notebooks/`` (``notebooks/<name>.py``).
"""
