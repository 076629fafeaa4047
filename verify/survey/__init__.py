"""``dpverify survey``: the noise primitives of the Python DP libraries, audited unmodified, one
environment per library, into one table (``docs/ecosystem.md``)."""
