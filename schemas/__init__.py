"""The JSON Schemas of every ``--json`` document, one file per version (``<name>-<version>.schema.json``).

Installed as package data of ``dpverify.schemas``, so that a user of the wheel can read them
without the repository: ``dpverify schema NAME`` prints one.
"""
